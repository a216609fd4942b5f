/**
 * The pages' own static assets (every script and style is served by the product, so the
 * pages work offline and the CSP names no other origin): `api/pages/assets/*.css|js`, read once,
 * served at `/assets/<name>` with a content hash in the URL (`?v=`) and a year of immutable caching.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One served asset. */
export interface Asset {
  name: string;
  type: string;
  body: Buffer;
  hash: string;
  url: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** The assets folder: next to this file in the sources (jest), or the sources' folder from dist/. */
function assetsDir(): string {
  const beside = path.join(__dirname, 'assets');
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '../../../api/pages/assets');
}

let cache: Map<string, Asset> | null = null;

/** Every asset by file name (read on first use). */
export function assets(): Map<string, Asset> {
  if (cache) return cache;
  const dir = assetsDir();
  cache = new Map();
  for (const name of fs.readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = fs.readFileSync(path.join(dir, name));
    const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
    cache.set(name, { name, type, body, hash, url: `/assets/${name}?v=${hash}` });
  }
  return cache;
}

/** The versioned URL of asset `name`; throws when it does not exist (a template bug). */
export function assetUrl(name: string): string {
  const a = assets().get(name);
  if (!a) throw new Error(`no page asset ${name}`);
  return a.url;
}
