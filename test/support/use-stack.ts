import { afterAll, beforeAll } from '@jest/globals';
import { startStack, type Stack, type StackEnv, type StackOptions, type TestBusiness, type TestStack } from './stack.js';

/**
 * The setup every integration file repeats, once: `useStack()` at the top of a file starts the real
 * stack (startStack, with its options) before its tests and stops it after them; `useBusiness(stack)`
 * makes a business once the stack is up. Each returns a stand-in that reads through to the real thing, so
 * a file keeps writing `stack.http…` and `biz.testKey` as it did with `let stack` and its own
 * beforeAll/afterAll. Hooks run in the order they are declared: a file's own beforeAll after these sees
 * both ready, and its own afterAll after these runs once the stack (and every process it started) is
 * gone. `env` may be a function, run when the stack starts, for what must exist first (a receiver, a
 * PostgreSQL or Temporal server of the file's own).
 */
export function useStack(env: StackEnv | (() => Promise<StackEnv>), opts: StackOptions & { processes: string }): Stack;
export function useStack(env?: StackEnv | (() => Promise<StackEnv>), opts?: StackOptions): TestStack;
export function useStack(env: StackEnv | (() => Promise<StackEnv>) = {}, opts: StackOptions = {}): TestStack | Stack {
  const stack = late<TestStack | Stack>('the stack');
  // Generous: `env` may start a server and migrate a database first, on a machine whose two cores are busy.
  beforeAll(async () => stack.set(await startStack(typeof env === 'function' ? await env() : env, opts)), 180_000);
  // As generous: a worker drains its running steps first, and on a machine whose cores are taken a stop
  // (each step named on stderr when slow, stack.ts) ran past jest's 60 s after every test had passed.
  afterAll(async () => stack.current()?.stop(), 180_000);
  return stack.value;
}

/** A fresh business of `stack` (approved unless told otherwise), made before the file's tests. */
export function useBusiness(stack: Stack, overrides?: Parameters<Stack['business']>[0]): TestBusiness {
  const business = late<TestBusiness>('the business');
  beforeAll(async () => business.set(await stack.business(overrides)));
  return business.value;
}

/** A value made in a hook, read through a stand-in from the start (an error if read before it exists). */
function late<T extends object>(what: string) {
  let current: T | undefined;
  const real = (): T => {
    if (!current) throw new Error(`${what} is read before its beforeAll made it`);
    return current;
  };
  const value = new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return { value, set: (made: T) => void (current = made), current: () => current };
}
