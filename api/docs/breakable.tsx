/**
 * Long identifiers in the docs (paths, codes, event types, patterns, URLs, hex values) drawn so that
 * a phone's narrow column wraps them between their parts, never inside one: a
 * run without spaces of 16 characters or more is cut after each `.`, `/`, `_`, `?`, `&`, `=`, `:`,
 * `,` or `-`, before a `{` or a capital that follows a small letter, and a long run of letters and
 * digits (a hash, an address) every 8 characters; each piece is a `nowrap` span with a `<wbr>`
 * between pieces. In code every shorter run is kept whole too (a bracket, a colon or a hyphen is no
 * line break), and in text a word with a hyphen before a digit (`UTF-8`, `EIP-55`). A copy or a
 * selection reads the text as it is.
 */
import type { ComponentChildren } from 'preact';

/** Runs this long or longer are cut into pieces. */
const LONG_RUN = 16;
/** A run of letters and digits this long is cut every {@link CHUNK} characters. */
const LONG_ALNUM = 24;
const CHUNK = 8;

/** The pieces of one run without spaces. */
function pieces(run: string): string[] {
  return run
    .split(/(?<=[./_?&=:,-])(?=[^./_?&=:,-])|(?=\{)|(?<=[a-z])(?=[A-Z])/)
    .filter(Boolean)
    .flatMap((p) =>
      p.length >= LONG_ALNUM && /^[^A-Za-z0-9]*[A-Za-z0-9]+[^A-Za-z0-9]*$/.test(p) ? p.match(new RegExp(`.{1,${CHUNK}}`, 'g'))! : [p],
    );
}

const whole = (x: string) => <span class="nobr">{x}</span>;

/** `text` with its long runs breakable between their parts; `code`: every run kept whole (see the file's comment). */
export function breakable(text: string, opts: { code?: boolean } = {}): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  for (const part of text.split(/(\s+)/)) {
    if (part === '' || /^\s+$/.test(part)) {
      if (part) out.push(part);
    } else if (part.length >= LONG_RUN) {
      pieces(part).forEach((x, i) => {
        if (i) out.push(<wbr />);
        out.push(whole(x));
      });
    } else if (opts.code || /-\d/.test(part)) {
      out.push(whole(part));
    } else {
      out.push(part);
    }
  }
  return out;
}

/** {@link breakable} as a component. */
export function Breakable(props: { text: string; code?: boolean }) {
  return <>{breakable(props.text, { code: props.code })}</>;
}
