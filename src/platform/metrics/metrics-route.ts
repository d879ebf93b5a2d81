/**
 * `GET /metrics` (Prometheus text format) and the HTTP request metrics.
 *
 * Access: with `R3_METRICS_TOKEN` set, the request needs `Authorization: Bearer <that token>` (401
 * otherwise; API tokens do not open it). Without it, only loopback clients are answered (403 for
 * anyone else), and a request that came through a proxy (it carries `X-Forwarded-For`, `Forwarded`
 * or `X-Real-IP`) is not loopback whatever its socket says: a reverse proxy on the same host would
 * otherwise expose the metrics to the world.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import { access } from '../auth/guard.js';
import { forbidden, unauthorized } from '../errors.js';
import { raw } from '../http/reply.js';
import { defineRoute, type RequestObserver, type RouteDef } from '../http/server.js';
import type { Metrics } from './metrics.js';

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/** Whether `address` (as the socket reports it) is a loopback address. */
export function isLoopback(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Methods counted by name; any other is `other` (a client picks the method: bound the labels). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const digest = (text: string) => createHash('sha256').update(text).digest();

/** `GET /metrics`, open to `Bearer <token>` when `token` is set, else to loopback clients only. */
export function metricsRoutes(metrics: Metrics, token: string | undefined): RouteDef[] {
  const expected = token === undefined ? null : digest(`Bearer ${token}`);
  return [
    defineRoute({
      method: 'GET',
      path: '/metrics',
      access: access.public,
      summary:
        'Prometheus metrics of this process (text format 0.0.4). Needs `Authorization: Bearer ' +
        '<R3_METRICS_TOKEN>` when that variable is set; otherwise answered to loopback clients only.',
      responses: { 200: { description: 'The metrics.', contentType: 'text/plain' } },
      errors: [401, 403],
      handler: async (ctx) => {
        if (expected) {
          const given = ctx.headers.authorization;
          if (given === undefined || !timingSafeEqual(digest(given), expected)) {
            throw unauthorized('GET /metrics needs Authorization: Bearer <R3_METRICS_TOKEN>.');
          }
        } else if (FORWARDING_HEADERS.some((h) => ctx.headers[h] !== undefined) || !isLoopback(ctx.ip)) {
          throw forbidden(
            'GET /metrics is served to loopback clients only while R3_METRICS_TOKEN is unset; ' +
              'set it and scrape with Authorization: Bearer <R3_METRICS_TOKEN>.',
            { setting: 'R3_METRICS_TOKEN' },
          );
        }
        return raw(200, await metrics.render(), metrics.contentType);
      },
    }),
  ];
}

/** Counts each request and its latency by method, route pattern (`unmatched` when none) and status. */
export function httpMetricsObserver(metrics: Pick<Metrics, 'http'>): RequestObserver {
  return (request, handle) => {
    const started = performance.now();
    return handle().then((status) => {
      const method = METHODS.has(request.method) ? request.method : 'other';
      metrics.http.observe(
        method,
        request.route ?? 'unmatched',
        status,
        (performance.now() - started) / 1000,
      );
      return status;
    });
  };
}
