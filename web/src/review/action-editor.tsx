/**
 * Editing a proposed action before approving it: only what may change (decisions.md §15) — a
 * `mail.send`'s recipients, subject and text; a `crm.update_deal`'s new property values, in the
 * before/after table; a `crm.create_note`'s text. The edited params are what the screen's "what will
 * happen" shows, and what the approval sends (the API merges them over the proposed ones and checks
 * them as it checks a proposal's).
 */
import type { Proposal } from '../wire.js';

type Params = Record<string, unknown>;

/** The params each action lets a reviewer change (the rest is shown, not editable). */
export const EDITABLE: Readonly<Record<string, readonly string[]>> = {
  'mail.send': ['to', 'subject', 'text'],
  'crm.update_deal': ['properties'],
  'crm.create_note': ['body'],
};

/** Whether the reviewer can edit `proposal`'s action here. */
export const editable = (proposal: Proposal): boolean => proposal.action in EDITABLE;

/** The edits of an approval: the editable params that differ from the proposed ones; null for none. */
export function actionEdits(proposal: Proposal, edited: Params | null): Params | null {
  if (!edited) return null;
  const proposed = proposal.params as Params;
  const changed = (EDITABLE[proposal.action] ?? []).filter(
    (key) => JSON.stringify(edited[key]) !== JSON.stringify(proposed[key]),
  );
  return changed.length > 0 ? { params: Object.fromEntries(changed.map((key) => [key, edited[key]])) } : null;
}

/** A property value typed back as the proposed value was (a number stays a number, yes/no a boolean). */
function typedLike(proposed: unknown, text: string): unknown {
  if (typeof proposed === 'number' && text.trim() !== '' && Number.isFinite(Number(text)))
    return Number(text);
  if (typeof proposed === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (proposed === null && text === '') return null;
  return text;
}

export function ActionEditor(props: { proposal: Proposal; params: Params; onChange(params: Params): void }) {
  const { proposal, params } = props;
  const set = (key: string, value: unknown) => props.onChange({ ...params, [key]: value });
  if (proposal.action === 'mail.send') {
    const to = Array.isArray(params.to) ? params.to.join(', ') : String(params.to ?? '');
    return (
      <div class="stack output-editor">
        <label for="edit-to">To (comma between addresses)</label>
        <input
          id="edit-to"
          value={to}
          onInput={(e) => {
            const list = e.currentTarget.value
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean);
            set('to', list.length === 1 && !Array.isArray((proposal.params as Params).to) ? list[0] : list);
          }}
        />
        <label for="edit-subject">Subject</label>
        <input
          id="edit-subject"
          value={String(params.subject ?? '')}
          onInput={(e) => set('subject', e.currentTarget.value)}
        />
        <label for="edit-text">Text</label>
        <textarea
          id="edit-text"
          rows={12}
          value={String(params.text ?? '')}
          onInput={(e) => set('text', e.currentTarget.value)}
        />
      </div>
    );
  }
  if (proposal.action === 'crm.update_deal') {
    const proposed = ((proposal.params as Params).properties ?? {}) as Params;
    const properties = (params.properties ?? {}) as Params;
    return (
      <div class="stack output-editor">
        {Object.keys(proposed).map((name) => (
          <div key={name} class="stack">
            <label for={`edit-property-${name}`}>New value of {name}</label>
            <input
              id={`edit-property-${name}`}
              value={
                properties[name] === null || properties[name] === undefined ? '' : String(properties[name])
              }
              onInput={(e) =>
                set('properties', { ...properties, [name]: typedLike(proposed[name], e.currentTarget.value) })
              }
            />
          </div>
        ))}
      </div>
    );
  }
  return (
    <div class="stack output-editor">
      <label for="edit-body">Note</label>
      <textarea
        id="edit-body"
        rows={8}
        value={String(params.body ?? '')}
        onInput={(e) => set('body', e.currentTarget.value)}
      />
    </div>
  );
}
