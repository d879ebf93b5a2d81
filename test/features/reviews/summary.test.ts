/** A review item's one-line summary (decisions §15): the draft's text, on one line, 200 characters. */
import { describe, expect, it } from 'vitest';
import { describeAction } from '../../../src/features/connectors/index.js';
import { draftSummary, oneLineSummary } from '../../../src/features/reviews/index.js';

describe('oneLineSummary', () => {
  it('folds whitespace to single spaces and keeps the first 200 characters (code points)', () => {
    expect(oneLineSummary('  Dear\tAnn,\n\n thanks  ')).toBe('Dear Ann, thanks');
    const emoji = '😀'.repeat(250);
    expect(Array.from(oneLineSummary(emoji) ?? '')).toHaveLength(200);
    expect(oneLineSummary('x'.repeat(200))).toHaveLength(200);
  });

  it('is null for nothing but whitespace', () => {
    expect(oneLineSummary(' \n\t ')).toBeNull();
  });
});

describe('draftSummary', () => {
  it("reads a string, then the output's text keys in order, then its first string field, then its JSON", () => {
    expect(draftSummary('plain')).toBe('plain');
    expect(draftSummary({ text: 'the text', markdown: '# md' })).toBe('# md');
    expect(draftSummary({ score: 3, verdict: 'ok' })).toBe('ok');
    expect(draftSummary({ score: 3, items: [1, 2] })).toBe('{"score":3,"items":[1,2]}');
    expect(draftSummary({ text: '', body: 'the body' })).toBe('the body');
  });

  it('is null without a draft', () => {
    expect(draftSummary(null)).toBeNull();
    expect(draftSummary(undefined)).toBeNull();
  });
});

describe('describeAction', () => {
  it('says what each action will do in one line', () => {
    expect(
      describeAction({ action: 'mail.send', params: { to: 'a@x.io', subject: 'Hi', text: 'Body' } }),
    ).toBe('Email to a@x.io: Hi');
    expect(
      describeAction({
        action: 'crm.update_deal',
        params: { dealId: '4', properties: { amount: null, stage: 'won' } },
      }),
    ).toBe('Update deal 4: amount → empty, stage → "won"');
    expect(describeAction({ action: 'crm.create_note', params: { body: 'Called', contactId: '9' } })).toBe(
      'Note on contact 9: Called',
    );
    expect(describeAction({ action: 'crm.create_note', params: { body: 'Loose' } })).toBe('Note: Loose');
  });
});
