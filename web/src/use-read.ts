/**
 * A page's one read of the API (`GET /api/v1<path>`), again when `path` changes: the answer once
 * there, whether it was 404 (the page then says not found), or the error of any other failure. An
 * answer for a path the page no longer shows is dropped.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api.js';

export interface Read<T> {
  value: T | null;
  missing: boolean;
  error: string | null;
}

export function useRead<T>(path: string): Read<T> {
  const [read, setRead] = useState<Read<T>>({ value: null, missing: false, error: null });
  useEffect(() => {
    let stopped = false;
    setRead({ value: null, missing: false, error: null });
    api<T>('GET', path)
      .then((value) => !stopped && setRead({ value, missing: false, error: null }))
      .catch((e: unknown) => {
        if (stopped) return;
        if (e instanceof ApiError && e.status === 404) setRead({ value: null, missing: true, error: null });
        else setRead({ value: null, missing: false, error: (e as Error).message });
      });
    return () => {
      stopped = true;
    };
  }, [path]);
  return read;
}
