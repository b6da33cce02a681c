import { Injectable } from '@nestjs/common';

/** Set when shutdown begins: readiness answers 503 from that moment, while requests still drain. */
@Injectable()
export class ShutdownState {
  private shuttingDown = false;
  private readonly listeners: Array<() => void> = [];

  begin(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const listener of this.listeners.splice(0)) listener();
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Runs `listener` when shutdown begins (at once if it has): what has to end before the drain deadline (the export streams). */
  onBegin(listener: () => void): void {
    if (this.shuttingDown) listener();
    else this.listeners.push(listener);
  }
}
