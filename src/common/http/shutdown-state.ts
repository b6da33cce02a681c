import { Injectable } from '@nestjs/common';

/** Set when shutdown begins: readiness answers 503 from that moment, while requests still drain. */
@Injectable()
export class ShutdownState {
  private shuttingDown = false;

  begin(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
