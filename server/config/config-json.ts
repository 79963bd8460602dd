import { ConfigError } from './config-error.js';

// The checks every part of the configuration's validation is made of: each throws a ConfigError naming the path and the
// problem, at the first one found.

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fail(path: string, problem: string): never {
  throw new ConfigError(path, problem);
}

export function requireObject(value: unknown, path: string): Json {
  if (!isObject(value)) fail(path, 'must be an object');
  return value;
}

export function requireArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'must be an array');
  return value;
}

export function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(path, 'must be a non-empty string');
  return value;
}

export function optionalString(value: unknown, path: string): void {
  if (value !== undefined) requireString(value, path);
}

export function finiteNumber(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, 'must be a number');
  return value;
}
