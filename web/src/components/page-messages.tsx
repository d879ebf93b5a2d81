/**
 * What a page says about the person's last action: the error (an alert, read out at once) and the
 * notice of what was done (read out politely, shown to no one: the page shows the outcome itself).
 */
export function PageMessages(props: { error: string | null; notice: string }) {
  return (
    <>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p class="visually-hidden" aria-live="polite">
        {props.notice}
      </p>
    </>
  );
}
