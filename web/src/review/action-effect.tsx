/**
 * What an approved proposal will do, shown as what it is rather than as JSON: a `mail.send` as the
 * email (to, subject, the body as text), a `crm.update_deal` as a table of each property's value
 * now (the deal as last synced) and after, a `crm.create_note` as the note; and, once approved, how
 * its execution goes (attempts, the next one while a retry waits, the last error).
 */
import { when } from '../format.js';
import type { Proposal } from '../wire.js';
import { BoundedText, JsonBlock } from './draft-view.js';

type Params = Record<string, unknown>;

/** A property value as the table shows it. */
function shown(value: unknown): string {
  if (value === undefined) return '—';
  if (value === null || value === '') return '(empty)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function ActionEffect({ proposal }: { proposal: Proposal }) {
  const params = proposal.params as Params;
  if (proposal.action === 'mail.send') {
    const to = Array.isArray(params.to) ? params.to.join(', ') : String(params.to ?? '');
    return (
      <article class="email" aria-label="The email">
        <dl class="facts">
          <dt>To</dt>
          <dd>{to}</dd>
          <dt>Subject</dt>
          <dd>{String(params.subject ?? '')}</dd>
          {typeof params.inReplyTo === 'string' && (
            <>
              <dt>In reply to</dt>
              <dd>
                <code>{params.inReplyTo}</code>
              </dd>
            </>
          )}
        </dl>
        <BoundedText text={String(params.text ?? '')} />
      </article>
    );
  }
  if (proposal.action === 'crm.update_deal') {
    const properties = (params.properties ?? {}) as Params;
    const record = proposal.syncedRecord;
    return (
      <>
        <table class="before-after">
          <caption>
            Deal {String(params.dealId ?? '')}
            {record?.properties.dealname ? ` (${shown(record.properties.dealname)})` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Property</th>
              <th scope="col">Now{record ? ` (synced ${when(record.syncedAt)})` : ''}</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(properties).map(([name, after]) => {
              const before = record ? record.properties[name] : undefined;
              const changes = !record || shown(before) !== shown(after);
              return (
                <tr key={name} class={changes ? 'changes' : undefined}>
                  <th scope="row">{name}</th>
                  <td>{record ? shown(before) : 'unknown'}</td>
                  <td>{shown(after)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {!record && (
          <p class="muted">This deal has not been synced from its source: its current values are unknown.</p>
        )}
      </>
    );
  }
  if (proposal.action === 'crm.create_note') {
    const on = ['dealId', 'contactId', 'companyId'].find((key) => params[key] !== undefined);
    return (
      <article class="note" aria-label="The note">
        {on && (
          <p>
            On {on.replace('Id', '')} {String(params[on])}
          </p>
        )}
        <BoundedText text={String(params.body ?? '')} />
      </article>
    );
  }
  return <JsonBlock value={params} />;
}

/** How the execution of an approved proposal goes (nothing before it is approved). */
export function ExecutionStatus({ proposal }: { proposal: Proposal }) {
  if (proposal.attempts === 0 && proposal.status !== 'executing') return null;
  return (
    <section aria-labelledby="execution-title">
      <h2 id="execution-title">Execution</h2>
      <dl class="facts" aria-live="polite">
        <dt>Attempts</dt>
        <dd>{proposal.attempts}</dd>
        {proposal.nextAttemptAt && (
          <>
            <dt>Next attempt</dt>
            <dd>{when(proposal.nextAttemptAt)}</dd>
          </>
        )}
        {proposal.error && (
          <>
            <dt>{proposal.status === 'failed' ? 'Error' : 'Last error'}</dt>
            <dd>
              <code>{proposal.error.code}</code>: {proposal.error.message}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
