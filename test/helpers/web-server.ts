/**
 * A local web site for the web tools' tests: a real HTTP server on 127.0.0.1 whose paths the test
 * scripts (pages, redirects, robots.txt, search APIs, bodies that never end), recording each request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers one request; `url` is the request's URL resolved against the site. */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

export interface WebSite {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Path and query of every request, in order of arrival. */
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** An HTML page with `title` and `body` (markup). */
export function html(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
}

/** A route answering `status` with `body` as `contentType`. */
export function page(body: string | Buffer, contentType = 'text/html; charset=utf-8', status = 200): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };
}

/** A route redirecting (302 by default) to `location`. */
export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

/** Starts a site on a free port of 127.0.0.1; unknown paths answer 404. */
export async function startWebSite(routes: Record<string, Route>): Promise<WebSite> {
  const requests: WebSite['requests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: `${url.pathname}${url.search}`, headers: req.headers });
    const route = routes[url.pathname];
    if (route) route(req, res, url);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
