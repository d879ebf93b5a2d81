/** Status lines for uWS's `writeStatus`, which takes the whole "200 OK" text. */
const TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const cache = new Map<number, string>();

/** `200` → `"200 OK"`. */
export function statusLine(status: number): string {
  let line = cache.get(status);
  if (!line) {
    line = `${status} ${TEXT[status] ?? 'Status'}`;
    cache.set(status, line);
  }
  return line;
}
