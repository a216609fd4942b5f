/**
 * The evidence PDF of a screening report (spec 4.8 `evidence_pdf`), made with pdfkit:
 * the report and screening ids, the network and address, every figure (score, level, verdict,
 * suggested action, flags, confidence), the sources checked, the provider version, when it was
 * screened, whether it was served from cache, and the SHA-256 of the report's data (the figures'
 * canonical JSON). Deterministic per report (the document dates are the report's).
 */
import PDFDocument from 'pdfkit';
import type { ScreeningReport } from '../entities';

/** Renders the evidence PDF of `r` (`application/pdf` bytes). */
export function renderEvidencePdf(screeningReport: ScreeningReport): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `Screening report ${screeningReport.id}`,
      Author: 'Payments Platform',
      CreationDate: screeningReport.created_at,
      ModDate: screeningReport.created_at,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const f = screeningReport.figures;
  doc.fontSize(18).text('Address screening report');
  doc
    .moveDown(0.5)
    .fontSize(10)
    .fillColor('#555')
    .text('A risk signal, never a block; the action is a suggestion, never an authorization.')
    .fillColor('black');
  doc.moveDown();
  const line = (label: string, value: string) => doc.fontSize(11).text(`${label}: ${value}`);
  line('Report', screeningReport.id);
  line('Screening', f.screening_id);
  line('Network', f.chain);
  line('Address', f.address);
  line('Risk score', `${f.risk_score} / 100`);
  line('Risk level', f.risk_level);
  line('Verdict', f.verdict);
  line('Suggested action', f.action);
  line('Flags', f.flags.length ? f.flags.join(', ') : 'none');
  line('Confidence', f.confidence);
  line('Sources checked', f.coverage.join(', '));
  line('Provider version', f.provider_version);
  line('Screened at', f.screened_at);
  line('Served from cache', screeningReport.cached ? `yes (report ${screeningReport.cached_from})` : 'no');
  line('Issued at', screeningReport.created_at.toISOString());
  doc.moveDown();
  line('SHA-256 of the report data', screeningReport.data_sha256);
  doc.end();
  return done;
}
