/**
 * The progress line of a Go build (temporal/dev/util.ts `goBuildProgress`, issue 38): the first
 * start's CLI build says which phase it is in and how far, from `go install -v` output.
 */
import { goBuildProgress } from '../../temporal/dev/util';

test('before any output: resolving modules', () => {
  expect(goBuildProgress('', null)).toBe('resolving modules');
});

test('downloads first, counted', () => {
  const out = 'go: downloading github.com/temporalio/cli v1.5.1\ngo: downloading go.temporal.io/server v1.29.1\n';
  expect(goBuildProgress(out, 1300)).toBe('downloading modules (2 so far)');
});

test('then packages compiled, against the last complete build when known', () => {
  const out = [
    'go: downloading github.com/temporalio/cli v1.5.1',
    'internal/goarch',
    'internal/abi',
    'go.temporal.io/server/common/primitives',
    'github.com/temporalio/cli/cmd/temporal',
  ].join('\n');
  expect(goBuildProgress(out, 400)).toBe('1 module downloaded, compiling: 4 of about 400 (1%) packages');
  expect(goBuildProgress(out, null)).toBe('1 module downloaded, compiling: 4 packages');
  // An estimate below what is already compiled says nothing wrong: it is left out.
  expect(goBuildProgress(out, 3)).toBe('1 module downloaded, compiling: 4 packages');
});

test('error lines and the command header are not packages', () => {
  const out = '$ go install -v x@v1   # 2026-01-01T00:00:00Z\n# go.temporal.io/server/foo\nfoo.go:1:1: undefined: bar\n';
  expect(goBuildProgress(out, null)).toBe('resolving modules');
});
