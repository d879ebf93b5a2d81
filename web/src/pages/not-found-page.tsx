/** Nothing here: an unknown page, or an id this org does not have (never told apart). */
export function NotFoundPage({ what = 'page' }: { what?: string }) {
  return (
    <main id="main">
      <h1>Not found</h1>
      <p>There is no such {what} here.</p>
      <p>
        <a href="/review">Back to the review queue</a>
      </p>
    </main>
  );
}
