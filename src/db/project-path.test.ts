import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectPath, projectRoot } from './project-path.ts';

describe('projectPath', () => {
  it("resolves under the repository's root from the sources", () => {
    expect(projectPath('migrations')).toBe(path.resolve('migrations'));
  });

  it('finds the nearest package.json above a folder, at any depth', () => {
    const manifests = new Set(['/app/package.json', '/app/node_modules/x/package.json']);
    const exists = (file: string) => manifests.has(file);
    expect(projectRoot('/app/dist', exists)).toBe('/app');
    expect(projectRoot('/app/dist/chunks', exists)).toBe('/app');
    expect(projectRoot('/app', exists)).toBe('/app');
    expect(projectRoot('/app/node_modules/x/lib', exists)).toBe('/app/node_modules/x');
  });

  it('names the folder when no package.json is above it', () => {
    expect(() => projectRoot('/nowhere/deep', () => false)).toThrow(/\/nowhere\/deep/);
  });
});
