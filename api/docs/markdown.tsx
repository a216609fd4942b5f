/**
 * Markdown to a preact tree (the guides): `markdown-it` parses (CommonMark with tables and
 * strikethrough, raw HTML off: `<script>` in a guide is text), and its token stream is turned into
 * preact elements here instead of markdown-it's HTML string, so no raw HTML ever enters a page: every
 * text and attribute is escaped by preact like the rest of the pages. Links keep markdown-it's URL
 * check (no `javascript:`, `vbscript:`, `file:` or non-image `data:`); a link to a sibling guide
 * (`other.md`, `./other.md#part`) points at its page (`/docs/guides/other#part`); headings get ids
 * for in-page links; table alignment becomes a class (the CSP allows no inline style); code blocks
 * and tables, which scroll sideways on a narrow screen, are focusable (keyboard scrolling); long
 * identifiers in text and inline code wrap between their parts on a phone (./breakable.tsx).
 */
import MarkdownIt from 'markdown-it';
import { h, type ComponentChildren, type VNode } from 'preact';
import { breakable } from './breakable';

type Token = MarkdownIt.Token;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Attributes copied from markdown-it's tokens; anything else is dropped. */
const KEPT_ATTRS = new Set(['href', 'src', 'alt', 'title', 'start', 'id']);

/** Elements that may scroll sideways (docs.css) take the keyboard focus, so they scroll without a mouse. */
const SCROLLABLE: Record<string, { tabIndex: number }> = { table: { tabIndex: 0 } };

/** A guide's front facts: its first heading and the first paragraph's text (for the index). */
export interface MarkdownSummary {
  title: string | null;
  lead: string | null;
}

/** A parsed Markdown document: its preact tree and summary. */
export interface RenderedMarkdown extends MarkdownSummary {
  body: VNode<any>;
}

/** GitHub-like heading slug: lower case, letters, digits and dashes. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .replace(/\s+/g, '-')
      .replace(/-+/g, '-') || 'section'
  );
}

/** The plain text of an inline token's children. */
function inlineText(t: Token | undefined): string {
  if (!t) return '';
  if (!t.children) return t.content;
  return t.children
    .map((c: Token) => (c.type === 'softbreak' || c.type === 'hardbreak' ? ' ' : c.children ? inlineText(c) : c.content))
    .join('');
}

/** `other.md` or `./other.md#x` (a sibling guide) becomes `/docs/guides/other#x`; anything else is kept. */
function guideHref(href: string): string {
  const m = /^(?:\.\/)?([A-Za-z0-9][A-Za-z0-9._-]*)\.md(#.*)?$/.exec(href);
  return m ? `/docs/guides/${m[1]}${m[2] ?? ''}` : href;
}

function attrsOf(t: Token): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of t.attrs ?? []) {
    const value = String(raw);
    if (name === 'style') {
      const align = /text-align:\s*(left|center|right)/.exec(value);
      if (align && align[1] !== 'left') out.class = `align-${align[1]}`;
    } else if (KEPT_ATTRS.has(name)) {
      out[name] = name === 'href' ? guideHref(value) : value;
    }
  }
  return out;
}

/** Builds elements from a flat token list (block level or one inline token's children). */
function build(tokens: Token[], headingIds: Map<string, number>): ComponentChildren[] {
  const root: ComponentChildren[] = [];
  const stack: { token: Token | null; children: ComponentChildren[] }[] = [{ token: null, children: root }];
  const top = () => stack[stack.length - 1].children;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.nesting === 1) {
      const frame = { token: t, children: [] as ComponentChildren[] };
      if (/^h[1-6]$/.test(t.tag)) {
        const base = slug(inlineText(tokens[i + 1]));
        const n = headingIds.get(base) ?? 0;
        headingIds.set(base, n + 1);
        t.attrSet('id', n === 0 ? base : `${base}-${n}`);
      }
      stack.push(frame);
      continue;
    }
    if (t.nesting === -1) {
      const frame = stack.pop()!;
      // Tight lists hide their paragraphs: the children go straight into the list item.
      if (frame.token!.hidden) top().push(...frame.children);
      else top().push(h(frame.token!.tag, { ...attrsOf(frame.token!), ...SCROLLABLE[frame.token!.tag] }, ...frame.children));
      continue;
    }
    top().push(leaf(t, headingIds));
  }
  while (stack.length > 1) {
    const frame = stack.pop()!;
    top().push(...frame.children);
  }
  return root;
}

/** One self-contained token. */
function leaf(t: Token, headingIds: Map<string, number>): ComponentChildren {
  switch (t.type) {
    case 'inline':
      return build(t.children ?? [], headingIds);
    case 'text':
    case 'text_special':
    case 'html_inline':
    case 'html_block':
      return breakable(t.content);
    case 'code_inline':
      return h('code', null, ...breakable(t.content, { code: true }));
    case 'softbreak':
      return '\n';
    case 'hardbreak':
      return h('br', null);
    case 'hr':
      return h('hr', null);
    case 'image':
      return h('img', { ...attrsOf(t), alt: inlineText(t) });
    case 'fence':
    case 'code_block': {
      const lang = t.info.trim().split(/\s+/)[0];
      return h('pre', { tabIndex: 0 }, h('code', lang ? { class: `language-${lang.replace(/[^A-Za-z0-9_+-]/g, '')}` } : null, t.content));
    }
    default:
      return t.content || null;
  }
}

/** Parses `source` (Markdown) into a preact tree (an `<article class="guide">`) and its summary. */
export function renderMarkdown(source: string): RenderedMarkdown {
  const tokens = md.parse(source, {});
  const body = h('article', { class: 'guide' }, ...build(tokens, new Map()));
  return { body, ...summarize(tokens) };
}

/** `source` (Markdown) as preact children without the guide's `<article>` (a description inside another page). */
export function renderMarkdownFragment(source: string): ComponentChildren[] {
  return build(md.parse(source, {}), new Map());
}

/** The first heading's text and the first paragraph's text of `source`. */
export function summarizeMarkdown(source: string): MarkdownSummary {
  return summarize(md.parse(source, {}));
}

function summarize(tokens: Token[]): MarkdownSummary {
  let title: string | null = null;
  let lead: string | null = null;
  for (let i = 0; i < tokens.length; i++) {
    if (title === null && tokens[i].type === 'heading_open') title = inlineText(tokens[i + 1]).trim() || null;
    if (lead === null && tokens[i].type === 'paragraph_open' && !tokens[i].hidden) lead = inlineText(tokens[i + 1]).trim() || null;
    if (title !== null && lead !== null) break;
  }
  return { title, lead };
}
