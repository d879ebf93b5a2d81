/** The review queue (/review). */
export function QueuePage() {
  return (
    <main id="main">
      <h1>Review queue</h1>
      <p>The queue is not built yet.</p>
    </main>
  );
}
