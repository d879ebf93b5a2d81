/** A review screen for a kind of item this deployment cannot show yet. */
export function UnknownKindPage({ kind }: { kind: string }) {
  return (
    <main id="main">
      <h1>Not available yet</h1>
      <p>This deployment cannot show a {kind} for review yet.</p>
      <p>
        <a href="/review">Back to the review queue</a>
      </p>
    </main>
  );
}
