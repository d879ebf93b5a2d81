/**
 * Serving the web UI: every page path answers the same HTML shell (the app routes in the browser),
 * under a strict Content-Security-Policy (no inline script or style, nothing from another origin);
 * `/assets/<name>-<hash>.<ext>` answers the bundle's files, cached for a year (their names change
 * when their content does).
 */
import { z } from 'zod';
import { access } from '../../../platform/auth/guard.js';
import { notFound } from '../../../platform/errors.js';
import type { RawReply } from '../../../platform/http/reply.js';
import { defineRoute, type RouteDef } from '../../../platform/http/server.js';
import type { WebBundle } from './web-bundle.js';

/**
 * The policy of every page (docs/api.md#browser-sessions-the-web-ui: no asset from any other origin, no
 * inline script).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The UI's page paths (docs/api.md#browser-sessions-the-web-ui), each answered with the shell. */
export const PAGE_PATHS = [
  '/login',
  '/review',
  '/review/runs/:id',
  '/review/missions/:id',
  '/review/actions/:id',
  '/review/evaluations/:id',
  '/review/policies',
  '/review/policies/:slug',
  '/skills/:slug',
  '/objects/:id',
  '/inspect/:kind/:id',
  '/admin/tokens',
  '/admin/webhooks',
  '/oauth/consent',
] as const;

const PAGE_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** The page and asset routes; `bundle()` is the loaded bundle (loaded before the server listens). */
export function webRoutes(bundle: () => WebBundle): RouteDef[] {
  const page = (): RawReply => ({
    kind: 'raw',
    status: 200,
    body: bundle().shell,
    contentType: 'text/html; charset=utf-8',
    headers: PAGE_HEADERS,
  });
  return [
    ...PAGE_PATHS.map((path) =>
      defineRoute({ method: 'GET', path, access: access.public, hidden: true, handler: page }),
    ),
    defineRoute({
      method: 'GET',
      path: '/',
      access: access.public,
      hidden: true,
      handler: () => ({
        kind: 'raw',
        status: 302,
        body: '',
        contentType: 'text/plain; charset=utf-8',
        headers: { Location: '/review', 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/assets/:name',
      access: access.public,
      hidden: true,
      params: z.object({ name: z.string().max(200) }),
      handler: ({ params, headers }) => {
        const file = bundle().files.get(params.name);
        if (!file) throw notFound('asset', params.name);
        const gzip = file.gzip && /\bgzip\b/.test(headers['accept-encoding'] ?? '');
        return {
          kind: 'raw',
          status: 200,
          body: gzip ? (file.gzip as Buffer) : file.body,
          contentType: file.contentType,
          headers: {
            'Cache-Control': 'public, max-age=31536000, immutable',
            Vary: 'Accept-Encoding',
            ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
          },
        };
      },
    }),
  ];
}
