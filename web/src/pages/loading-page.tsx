/** What a page shows while its subject loads (with the error of a failed read, if any). */
export function LoadingPage({ error }: { error?: string | null }) {
  return (
    <main id="main" aria-busy="true">
      <p>Loading…</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}
