/**
 * A QR code drawn as SVG on the server (the payer page's payment URI), with the `qrcode`
 * library's encoder (byte mode, error correction M) and one `<path>` of dark modules: no script, no
 * image request, escaped like any other template.
 */
import QRCode from 'qrcode';

/** An SVG QR code of `text`, labelled by `label` (role img). */
export function QrCode(props: { text: string; label: string }) {
  const qr = QRCode.create(props.text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const quiet = 4;
  let d = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (qr.modules.get(y, x)) d += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  }
  const box = size + quiet * 2;
  return (
    <svg
      class="qr"
      role="img"
      aria-label={props.label}
      viewBox={`0 0 ${box} ${box}`}
      xmlns="http://www.w3.org/2000/svg"
      shape-rendering="crispEdges"
    >
      <rect width={box} height={box} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
