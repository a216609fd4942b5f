/**
 * The docs' static assets, all served by the product at `/docs/assets/<name>` (offline, no
 * CDN, no third-party origin in the CSP): the docs' own `api/docs/assets/*.css|js` (the docs'
 * stylesheet; the references are server-rendered, docs/decisions/0093, so no renderer is shipped).
 * Each is read once, hashed for a versioned URL (`?v=<hash>`, a year of immutable caching) and kept
 * gzipped for clients that accept it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** One served docs asset. */
export interface DocsAsset {
  name: string;
  type: string;
  body: Buffer;
  gzipped: Buffer;
  hash: string;
  url: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** The docs' own assets folder: next to this file in the sources (jest), or the sources' folder from dist/. */
function ownAssetsDir(): string {
  const beside = path.join(__dirname, 'assets');
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '../../../api/docs/assets');
}

let cache: Map<string, DocsAsset> | null = null;

function load(name: string, file: string): DocsAsset | null {
  const type = TYPES[path.extname(name)];
  if (!type) return null;
  const body = fs.readFileSync(file);
  const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name, type, body, gzipped: zlib.gzipSync(body, { level: 9 }), hash, url: `/docs/assets/${name}?v=${hash}` };
}

/** Every docs asset by file name (read on first use). */
export function docsAssets(): Map<string, DocsAsset> {
  if (cache) return cache;
  const found = new Map<string, DocsAsset>();
  const own = ownAssetsDir();
  for (const name of fs.readdirSync(own)) {
    const a = load(name, path.join(own, name));
    if (a) found.set(name, a);
  }
  cache = found;
  return cache;
}

/** The versioned URL of docs asset `name`; throws when it does not exist (a template bug). */
export function docsAssetUrl(name: string): string {
  const a = docsAssets().get(name);
  if (!a) throw new Error(`no docs asset ${name}`);
  return a.url;
}
