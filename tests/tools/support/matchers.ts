import { expect } from 'vitest';

/*
 * vitest's asymmetric matchers are typed `any`; these give them the type of the value they
 * stand for, so a test object stays type-checked.
 */

export function containing(text: string): string {
  return expect.stringContaining(text) as string;
}

export function matching(pattern: RegExp): string {
  return expect.stringMatching(pattern) as string;
}

export function like<T extends object>(shape: T): T {
  return expect.objectContaining<unknown>(shape) as T;
}
