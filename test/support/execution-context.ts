import type { ExecutionContext, Type } from '@nestjs/common';
import type { Request } from 'express';

/** The part of an express response the guards touch: headers set, kept by lower-cased name. */
export interface FakeResponse {
  headers: Map<string, string>;
  setHeader(name: string, value: string | number): FakeResponse;
  getHeader(name: string): string | undefined;
}

export function fakeResponse(): FakeResponse {
  const headers = new Map<string, string>();
  return {
    headers,
    setHeader(name, value) {
      headers.set(name.toLowerCase(), String(value));
      return this;
    },
    getHeader: (name) => headers.get(name.toLowerCase()),
  };
}

/**
 * A hand-made HTTP ExecutionContext, as Nest hands one to a guard: the route is the method
 * `handler` of the class `controller` (their decorators are the route's metadata), with this
 * request and response.
 */
export function httpContext(
  controller: Type,
  handler: string,
  req: Partial<Request> = {},
  res: FakeResponse = fakeResponse(),
): { context: ExecutionContext; req: Request; res: FakeResponse } {
  const request = { headers: {}, ...req } as Request;
  const method = (controller.prototype as Record<string, unknown>)[handler] as (...args: unknown[]) => unknown;
  if (typeof method !== 'function') throw new Error(`${controller.name} has no route ${handler}`);
  const args = [request, res, () => undefined];
  const context: ExecutionContext = {
    getClass: <T>() => controller as unknown as Type<T>,
    getHandler: () => method,
    getArgs: <T extends unknown[]>() => args as T,
    getArgByIndex: <T>(index: number) => args[index] as T,
    getType: <T extends string>() => 'http' as T,
    switchToHttp: () => ({
      getRequest: <T>() => request as T,
      getResponse: <T>() => res as unknown as T,
      getNext: <T>() => args[2] as T,
    }),
    switchToRpc: () => {
      throw new Error('an HTTP context only');
    },
    switchToWs: () => {
      throw new Error('an HTTP context only');
    },
  };
  return { context, req: request, res };
}

/** The error `run` throws or rejects with (failing the test when it does not). */
export async function caught(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}
