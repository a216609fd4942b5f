/**
 * The OpenAPI document as the common tools see it (docs/decisions/0065-client-generator-compiles-our-document.md):
 * Redocly's linter finds zero errors in this build's document (`npm run lint:openapi`), and OpenAPI
 * Generator's typescript-fetch client generated from it compiles under `tsc --strict`
 * (`npm run client:generate:openapi-generator`, scripts/openapi-generator.ts; its jar is resolved
 * from Maven Central once per machine into the cache outside the checkout). Both read the document
 * of the build in dist/ (jest's global setup compiles it). They run here, beside the other files on
 * jest's workers, rather than one after the other before the suite. The openapi-typescript client is
 * tests/contract/typed-client.test.ts's (generated from the served document and run).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

jest.setTimeout(10 * 60_000);

const ROOT = path.join(__dirname, '..', '..');

/** Runs npm script `name` from the checkout; returns its exit status and its output. */
function npmRun(name: string): { status: number | null; output: string } {
  const r = spawnSync('npm', ['run', name, '--loglevel=warn'], { cwd: ROOT, encoding: 'utf8', timeout: 9 * 60_000 });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

test("Redocly's linter finds no error in this build's document", () => {
  const { status, output } = npmRun('lint:openapi');
  if (status !== 0) throw new Error(`npm run lint:openapi exited ${status}:\n${output.slice(-8000)}`);
  expect(output).not.toMatch(/\b[1-9]\d* errors?\b/);
});

test("OpenAPI Generator's typescript-fetch client of this build's document compiles under tsc --strict", () => {
  const { status, output } = npmRun('client:generate:openapi-generator');
  if (status !== 0) throw new Error(`npm run client:generate:openapi-generator exited ${status}:\n${output.slice(-8000)}`);
  expect(output).toContain('tsc --strict: 0 errors');
});
