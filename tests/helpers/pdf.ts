/**
 * Reads a PDF's text back with pdf-parse (pdf.js) in a child Node process: pdf.js loads its worker
 * by a dynamic import that jest's module sandbox refuses, so the parse runs outside it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The text of every page of the PDF `bytes`. Throws when pdf.js cannot parse it. */
export function pdfText(bytes: Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-')), 'doc.pdf');
  fs.writeFileSync(file, bytes);
  const script =
    "const { PDFParse } = require('pdf-parse'); const fs = require('node:fs');" +
    'new PDFParse({ data: fs.readFileSync(process.argv[1]) }).getText().then((t) => process.stdout.write(t.text), (e) => { console.error(e); process.exit(1); });';
  return execFileSync(process.execPath, ['-e', script, file], { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8' });
}
