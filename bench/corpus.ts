/**
 * A deterministic generator of business documents for the search benchmark: CRM deals, support
 * tickets, meeting notes, mail threads and knowledge-base articles, each with its own vocabulary, a
 * shared business vocabulary drawn with a Zipf-like skew, names of people, companies and products, and
 * per-type metadata. The same seed always yields the same corpus and the same queries.
 */

/** mulberry32: a small, fast, seedable PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST =
  `Ava Ben Chloe Dan Elena Farid Grace Hugo Ines Jonas Kira Liam Maya Noah Olga Pedro Quinn Rosa Sven Tara
Umar Vera Wen Ximena Yusuf Zoe Amir Bianca Carlos Dana Emil Fatima Gustav Hana Ivan Julia Kenji Lena Marco Nadia Oscar
Priya Rafael Sofia Tomas Uma Viktor Wanda Yara Zain`.split(/\s+/);
const LAST =
  `Andersen Becker Costa Dubois Eriksen Fischer Garcia Hansen Ito Jensen Kowalski Larsen Moreau Nakamura Olsen
Petrov Quintana Rossi Schmidt Tanaka Ueda Varga Weber Xu Yilmaz Zimmermann Alvarez Brennan Castillo Duarte`.split(
    /\s+/,
  );
const SYLLABLES =
  'ac me glo bex ini tech nova ver dyn axi lum era corp tri zen qua sol hel ion tal mar kin rho sig ven'.split(
    ' ',
  );
const SUFFIX = [
  'Inc',
  'GmbH',
  'Ltd',
  'Labs',
  'Systems',
  'Group',
  'Partners',
  'Logistics',
  'Health',
  'Energy',
];
const PRODUCTS =
  `Atlas Beacon Compass Delta Echo Falcon Harbor Insight Juniper Keystone Lighthouse Meridian Nimbus Orbit
Pinnacle Quasar Radius Summit Tempo Unity Vector Willow Zenith`.split(/\s+/);

const BUSINESS =
  `account agreement analysis approval budget calendar campaign change channel client contract cost customer
deadline decision delivery demand discount document draft email escalation estimate feedback follow forecast goal growth
integration invoice issue launch lead license margin market meeting migration milestone onboarding order partner payment
pipeline plan policy pricing priority process procurement product project proposal quarter quote region release renewal
report request requirement revenue review risk roadmap rollout sales schedule security service signature solution
stakeholder strategy subscription supplier support target task team timeline training trial update upgrade usage vendor
volume workflow workshop audit backlog baseline benchmark capacity compliance dashboard dependency forecasting governance
headcount inventory invoice kickoff latency metrics outage payroll refund retention scope sprint throughput warranty`.split(
    /\s+/,
  );

const TOPICS: Record<string, string[]> = {
  deal: `opportunity prospect champion procurement stage negotiation discount seats expansion upsell renewal competitor
  pricing quote contract signature budget decision legal redlines pilot evaluation shortlist incumbent churn`.split(
    /\s+/,
  ),
  ticket:
    `error crash login password reset timeout latency outage bug regression workaround patch sync export import
  permission sso token certificate browser mobile notification webhook api rate limit duplicate`.split(/\s+/),
  meeting:
    `agenda minutes action items attendees recap decision owner follow-up retrospective standup planning
  demo brainstorm alignment offsite quarterly review hiring interview onboarding budget headcount`.split(
      /\s+/,
    ),
  mail: `thanks regards attached invoice reminder overdue confirm schedule reschedule introduction question reply
  forward update urgent approval receipt shipment delivery tracking apology welcome newsletter`.split(/\s+/),
  doc: `guide how-to configuration setup install architecture overview faq troubleshooting checklist policy
  procedure template glossary onboarding security backup restore migration api reference tutorial`.split(
    /\s+/,
  ),
};

const TEMPLATES: Record<string, string[]> = {
  deal: [
    '{company} is evaluating {product} for {n} seats; {person} is the champion and expects a {topic} decision by {month}.',
    'Procurement at {company} asked for a {n}% discount on the {topic} before signing the {business}.',
    '{person} flagged a competitor in the {topic} stage; we need a stronger {business} story for {company}.',
    'Next step: send the revised quote for {product} and schedule a {topic} call with {person}.',
  ],
  ticket: [
    'Customer {company} reports a {topic} {topic} when using {product} on the {business} page.',
    '{person} cannot complete the {topic}; the {business} fails with error code {n}.',
    'Workaround: clear the {topic} cache and retry the {business}. Engineering is tracking the {topic}.',
    'Severity raised after {n} users at {company} hit the same {topic} during {business}.',
  ],
  meeting: [
    'Attendees: {person}, {person} and {person}. We reviewed the {business} and the {topic} for {product}.',
    'Decision: {person} owns the {topic}; the {business} moves to {month}.',
    'Action items: update the {business}, share the {topic} notes, and confirm the {business} with {company}.',
    'We spent most of the {topic} on {business} risks and the {product} {business}.',
  ],
  mail: [
    'Hi {person}, following up on the {business} for {company}. Could you {topic} by {month}?',
    'Thanks {person}, the {topic} is attached. Let me know if the {business} needs changes.',
    'Quick {topic}: the {business} for {product} is still open; {company} is waiting on our {business}.',
    'Best regards, {person}. PS: the {topic} for order {n} is confirmed.',
  ],
  doc: [
    'This {topic} explains how to configure {product} for {business} and {business}.',
    'Step {n}: open the {product} settings, choose {topic}, and review the {business} defaults.',
    'If the {topic} fails, check the {business} permissions and the {topic} logs.',
    'See also the {topic} for {business} and the {product} {topic}.',
  ],
};

const TITLES: Record<string, string[]> = {
  deal: ['{company} {product} {topic}', '{company} {business} {topic}', '{product} {topic} for {company}'],
  ticket: ['{product} {topic} {topic}', '{topic} after {business}', '{company}: {topic} on {product}'],
  meeting: ['{business} {topic} with {company}', 'Weekly {topic}', '{product} {business} {topic}'],
  mail: ['Re: {business} {topic}', 'Fwd: {company} {business}', '{topic} about {product}'],
  doc: ['{product} {topic}', 'How to {topic} {business}', '{topic}: {business} {topic}'],
};

const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

/** The object types of the corpus, their source, and a JSON Schema of their metadata. */
export const CORPUS_TYPES = [
  {
    slug: 'deal',
    source: 'crm',
    schema: {
      type: 'object',
      properties: { amount: { type: 'number' }, stage: { type: 'string' }, company: { type: 'string' } },
      required: ['amount'],
    },
    sourceRelevance: { crm: 2, mail: 0.5 },
  },
  {
    slug: 'ticket',
    source: 'files',
    schema: { type: 'object', properties: { priority: { enum: ['low', 'normal', 'high', 'urgent'] } } },
    sourceRelevance: {},
  },
  {
    slug: 'meeting',
    source: 'meetings',
    schema: { type: 'object', properties: { attendees: { type: 'array', items: { type: 'string' } } } },
    sourceRelevance: { meetings: 1.5 },
  },
  { slug: 'mail', source: 'mail', schema: { type: 'object' }, sourceRelevance: { mail: 1 } },
  { slug: 'doc', source: 'http', schema: { type: 'object' }, sourceRelevance: {} },
] as const;

export type CorpusType = (typeof CORPUS_TYPES)[number]['slug'];

export interface CorpusDoc {
  type: CorpusType;
  source: string;
  title: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** A generator of documents and queries, deterministic for a seed. */
export function createCorpus(seed = 42) {
  const random = rng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  // Zipf-like: low indexes much more often, so some words are common and most are rare.
  const skewed = <T>(list: readonly T[]): T => list[Math.floor(list.length * random() ** 2.2)] as T;
  const companies = Array.from({ length: 400 }, () => {
    const name = pick(SYLLABLES) + pick(SYLLABLES);
    return `${name[0]?.toUpperCase()}${name.slice(1)} ${pick(SUFFIX)}`;
  });
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;
  const fill = (template: string, type: CorpusType) =>
    template.replace(/\{(\w+)\}/g, (_, slot: string) => {
      switch (slot) {
        case 'company':
          return skewed(companies);
        case 'person':
          return person();
        case 'product':
          return pick(PRODUCTS);
        case 'topic':
          return skewed(TOPICS[type] ?? []);
        case 'business':
          return skewed(BUSINESS);
        case 'month':
          return pick(MONTHS);
        default:
          return String(1 + Math.floor(random() * 500));
      }
    });

  function doc(index: number): CorpusDoc {
    const spec = CORPUS_TYPES[index % CORPUS_TYPES.length] as (typeof CORPUS_TYPES)[number];
    const type = spec.slug;
    const sentences = 3 + Math.floor(random() * 10);
    const content: string[] = [];
    for (let i = 0; i < sentences; i++) content.push(fill(pick(TEMPLATES[type] ?? []), type));
    const rawTitle = fill(pick(TITLES[type] ?? []), type);
    const title = rawTitle[0]?.toUpperCase() + rawTitle.slice(1);
    const metadata: Record<string, unknown> =
      type === 'deal'
        ? {
            amount: Math.round(random() * 200_000),
            stage: pick(['open', 'won', 'lost']),
            company: skewed(companies),
          }
        : type === 'ticket'
          ? { priority: pick(['low', 'normal', 'high', 'urgent']) }
          : type === 'meeting'
            ? { attendees: [person(), person()] }
            : {};
    return { type, source: spec.source, title, content: content.join(' '), metadata };
  }

  /** A search query of one of several kinds, some aimed at existing documents. */
  function query(docs: readonly CorpusDoc[]): { kind: string; text: string; types?: string[] } {
    const roll = random();
    const target = pick(docs);
    const words = target.content.split(/\W+/).filter((w) => w.length > 3);
    const types = random() < 0.2 ? [target.type] : undefined;
    const withTypes = (q: { kind: string; text: string }) => (types ? { ...q, types } : q);
    if (roll < 0.2) return withTypes({ kind: 'exact title', text: target.title });
    if (roll < 0.4) return withTypes({ kind: 'company', text: skewed(companies).split(' ')[0] ?? 'acme' });
    if (roll < 0.65) {
      return withTypes({
        kind: 'two or three words',
        text: Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(words)).join(' '),
      });
    }
    if (roll < 0.8) {
      const word = pick(words);
      const i = Math.max(1, Math.floor(random() * (word.length - 1)));
      return withTypes({ kind: 'typo', text: word.slice(0, i) + word.slice(i + 1) });
    }
    return withTypes({
      kind: 'question',
      text: `how do we handle ${skewed(BUSINESS)} ${skewed(TOPICS[target.type] ?? [])} for ${pick(PRODUCTS)}`,
    });
  }

  return { doc, query };
}
