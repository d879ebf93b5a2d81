/** A token just issued: its plaintext, shown this once, with a copy button. */
import { useState } from 'preact/hooks';
import type { IssuedToken } from '../stores/tokens-store.js';

export function IssuedTokenPanel(props: { issued: IssuedToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.issued.token).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <section class="notice stack" aria-labelledby="issued-title">
      <h2 id="issued-title">Token {props.issued.id} issued</h2>
      <p>Copy it now: it is not shown again.</p>
      <label for="issued-token">Token</label>
      <input
        id="issued-token"
        readOnly
        value={props.issued.token}
        onFocus={(e) => e.currentTarget.select()}
      />
      <div class="row">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy
        </button>
        <span role="status">{copied ? 'Copied.' : ''}</span>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
