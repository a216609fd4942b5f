/**
 * What every docs page shares: the list of the docs' addresses (also the JSON of `GET /`),
 * the navigation between them, and `DocsPage`, the pages' own `Layout` (api/pages/layout.tsx) with
 * the docs' stylesheet and navigation added. The docs are written in English, so the document's
 * language is English whatever `Accept-Language` asks.
 */
import type Koa from 'koa';
import type { ComponentChildren } from 'preact';
import { Layout } from '../pages/layout';
import { localeFor } from '../pages/i18n';
import { pageContext } from '../pages/render';
import { docsAssetUrl } from './assets';

/** One address of the docs, as the root lists it. */
export interface DocsLink {
  /** Stable key (the JSON of `GET /` is keyed by it). */
  rel: 'reference' | 'guides' | 'errors' | 'openapi' | 'simulator_reference' | 'simulator_openapi';
  href: string;
  title: string;
  description: string;
}

/** The docs' addresses; the simulator's two only when the simulator is on. */
export function docsLinks(simulator: boolean): DocsLink[] {
  const links: DocsLink[] = [
    {
      rel: 'reference',
      href: '/docs',
      title: 'API reference',
      description:
        'Every /v1 operation, its parameters, bodies, answers and errors, and the webhook events, drawn from the served OpenAPI document.',
    },
    {
      rel: 'guides',
      href: '/docs/guides',
      title: 'Guides',
      description: 'Step-by-step guides: from a first request to receiving webhooks.',
    },
    {
      rel: 'errors',
      href: '/docs/errors',
      title: 'Error reference',
      description: 'Every error type and code the API answers, with what to do about it.',
    },
    {
      rel: 'openapi',
      href: '/v1/openapi.json',
      title: 'OpenAPI document',
      description: 'The /v1 contract as OpenAPI 3.1 JSON, for code generators and tools.',
    },
  ];
  if (simulator) {
    links.push(
      {
        rel: 'simulator_reference',
        href: '/sim/docs',
        title: 'Simulator reference',
        description: 'The sandbox simulator: act as the outside world (chains, banks, providers) in test mode.',
      },
      {
        rel: 'simulator_openapi',
        href: '/sim/openapi.json',
        title: 'Simulator OpenAPI document',
        description: "The simulator's routes as OpenAPI 3.1 JSON.",
      },
    );
  }
  return links;
}

const NAV: { href: string; title: string; simulatorOnly?: boolean }[] = [
  { href: '/docs', title: 'API reference' },
  { href: '/docs/guides', title: 'Guides' },
  { href: '/docs/errors', title: 'Errors' },
  { href: '/sim/docs', title: 'Simulator', simulatorOnly: true },
];

/** The links between the docs pages; `current` (a path) is marked `aria-current="page"`. */
export function DocsNav(props: { current: string; simulator: boolean }) {
  return (
    <nav class="docs-nav" aria-label="Documentation">
      <ul>
        <li>
          <a class="brand" href="/" aria-current={props.current === '/' ? 'page' : undefined}>
            Payments Platform API
          </a>
        </li>
        {NAV.filter((n) => !n.simulatorOnly || props.simulator).map((n) => (
          <li>
            <a href={n.href} aria-current={props.current === n.href ? 'page' : undefined}>
              {n.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Props of {@link DocsPage}. */
export interface DocsPageProps {
  ctx: Koa.Context;
  title: string;
  /** The page's path, for the navigation's current mark. */
  current: string;
  simulator: boolean;
  children: ComponentChildren;
}

/**
 * A docs page inside the pages' `Layout` (same frame, stylesheet, script, CSP nonce and SANDBOX banner),
 * with the docs' stylesheet (a `<link>` in the body, which HTML allows for stylesheets) and navigation.
 */
export function DocsPage(props: DocsPageProps) {
  const page = pageContext(props.ctx);
  return (
    <Layout locale={localeFor('en-US')} nonce={page.nonce} title={`${props.title} · Payments Platform API`} sandbox={page.sandbox}>
      <link rel="stylesheet" href={docsAssetUrl('docs.css')} nonce={page.nonce} />
      <DocsNav current={props.current} simulator={props.simulator} />
      {props.children}
    </Layout>
  );
}
