/**
 * Realistic-looking values for parameters, chosen from the parameter's name and description:
 * a `path` looks like a path, an `AccountSid` like a Twilio SID, a `channel_id` like a Slack ID,
 * a `query` like a search. These are *candidates*: the sampler still enforces the schema
 * (formats, lengths, patterns, enums) and falls back to plain values when a candidate does not
 * fit. A scenario shares one `Theme` so its calls talk about the same company, user and folder.
 */
import type { Faker } from '@faker-js/faker';
import { nameWords, singular } from '../../checks/integrity';
import type { Rng } from './rng';

/** Scenario-wide facts every value draws from, so calls of one scenario agree. */
export interface Theme {
  company: string;
  /** Company as a slug (`acme-corp`): owners, orgs, namespaces. */
  org: string;
  /** A product/repository/project slug (`payments-service`). */
  project: string;
  /** A login (`mlopez`). */
  user: string;
  /** A person's full name. */
  person: string;
  /** A web domain (`acme-corp.com`). */
  domain: string;
  /** A working folder (`/home/mlopez/projects/payments-service`). */
  baseDir: string;
  /** A topic word for searches and titles (`invoice`). */
  topic: string;
}

const slugify = (s: string): string =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

const TOPICS = [
  'invoice',
  'onboarding',
  'release',
  'incident',
  'billing',
  'checkout',
  'analytics',
  'inventory',
  'support',
  'compliance',
  'migration',
  'roadmap',
  'payroll',
  'shipment',
  'campaign',
  'audit',
];
const PROJECT_NOUNS = ['service', 'api', 'portal', 'dashboard', 'gateway', 'worker', 'app', 'platform', 'pipeline', 'sdk'];
const EXTENSIONS = ['md', 'ts', 'json', 'yaml', 'csv', 'txt', 'py', 'log'];
const FOLDERS = ['docs', 'src', 'reports', 'config', 'notes', 'data', 'scripts'];

/** A theme for one scenario. */
export function makeTheme(faker: Faker, rng: Rng): Theme {
  const company = faker.company.name().replace(/[,.]/g, '');
  const org = slugify(company.split(/\s+/).slice(0, 2).join(' ')) || 'acme';
  const topic = rng.pick(TOPICS) ?? 'invoice';
  const project = `${topic}-${rng.pick(PROJECT_NOUNS) ?? 'service'}`;
  const first = faker.person.firstName();
  const last = faker.person.lastName();
  const user = slugify(`${first[0] ?? 'j'}${last}`).replace(/-/g, '') || 'jdoe';
  return {
    company,
    org,
    project,
    user,
    person: `${first} ${last}`,
    domain: `${org}.com`,
    baseDir: `/home/${user}/projects/${project}`,
    topic,
  };
}

/** Hex string of n characters. */
export function hex(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'[rng.int(0, 15)];
  return s;
}

/** Alphanumeric string of n characters from an alphabet. */
export function alnum(rng: Rng, n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s;
}

/** A sentence a person might write in a ticket, message or note, about a topic. */
export function sentence(faker: Faker, rng: Rng, theme: Theme, about?: string): string {
  const thing = about || theme.topic;
  const day = faker.date.weekday();
  const templates = [
    `Please review the ${thing} changes for ${theme.company} before ${day}.`,
    `Follow up with ${theme.person} about the ${thing} numbers from last week.`,
    `The ${thing} report is ready; key figures are in the attached summary.`,
    `Heads up: the ${thing} rollout is scheduled for ${day} morning.`,
    `Customer asked for an update on the ${thing} timeline.`,
    `Draft notes from the ${thing} sync with the ${theme.project} team.`,
  ];
  return rng.pick(templates) ?? templates[0]!;
}

/** A short title. */
export function title(rng: Rng, theme: Theme, about?: string): string {
  const thing = about || theme.topic;
  const templates = [
    `Fix ${thing} totals in ${theme.project}`,
    `Q3 ${thing} review`,
    `Update ${thing} documentation`,
    `${cap(thing)} follow-up for ${theme.company}`,
    `Investigate ${thing} alerts`,
  ];
  return rng.pick(templates) ?? templates[0]!;
}

/** Capitalises the first letter. */
export function cap(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** Twilio-style SID prefix from an entity word (`call` → `CA`, `account` → `AC`). */
function sidPrefix(entity: string | undefined): string {
  const known: Record<string, string> = {
    account: 'AC',
    call: 'CA',
    recording: 'RE',
    conference: 'CF',
    message: 'SM',
    queue: 'QU',
    address: 'AD',
    application: 'AP',
    participant: 'CA',
    transcription: 'TR',
    key: 'SK',
    media: 'ME',
    feedback: 'FB',
    notification: 'NO',
    domain: 'SD',
    credential: 'CR',
  };
  if (entity && known[entity]) return known[entity];
  return (entity ?? 'xx').slice(0, 2).toUpperCase().padEnd(2, 'X');
}

/** What the value is for: the parameter's words plus the tool's entity and the description. */
export interface ValueHint {
  name: string;
  description: string;
  /** Entity of the tool the parameter belongs to (`call`), when known. */
  toolEntity?: string;
  /** Whether the tool reads/acts on files (affects `path`). */
  fileContext?: boolean;
  /** The tool works inside a code repository (paths are repo-relative). */
  repoContext?: boolean;
  /** The tool lists or searches (its `path` is a folder to look in). */
  listing?: boolean;
}

/**
 * A realistic string for a parameter, or undefined when the name says nothing useful.
 * Deterministic for a given (faker seed, rng state).
 */
export function realisticString(hint: ValueHint, faker: Faker, rng: Rng, theme: Theme): string | undefined {
  const words = nameWords(hint.name).map(singular);
  const last = words[words.length - 1] ?? '';
  const has = (...w: string[]): boolean => w.some((x) => words.includes(x));
  const desc = hint.description.toLowerCase();
  const ent = words.length > 1 ? words[words.length - 2] : hint.toolEntity;

  if (has('email') || (last === 'address' && desc.includes('email'))) return `${theme.user}@${theme.domain}`;
  if (has('url', 'uri', 'link', 'href', 'website', 'homepage', 'endpoint', 'webhook') || (has('callback') && !has('method'))) {
    if (desc.includes('callback') || has('callback', 'webhook')) return `https://hooks.${theme.domain}/${slugify(hint.name)}`;
    return `https://www.${theme.domain}/${rng.pick(['pricing', 'docs/getting-started', 'blog/q3-update', 'status', 'careers'])}`;
  }
  if ((has('phone', 'to', 'from', 'caller', 'called') && /phone|e\.164|number/.test(desc)) || last === 'phone')
    return `+1415555${String(rng.int(0, 9999)).padStart(4, '0')}`;
  if (last === 'sid') return `${sidPrefix(words.length > 1 ? ent : hint.toolEntity)}${hex(rng, 32)}`;
  if (has('uuid', 'guid') || (last === 'id' && /uuid/.test(desc))) return faker.string.uuid();
  if (has('sha', 'commit', 'revision') || (last === 'hash' && /commit|git/.test(desc))) return hex(rng, 40);
  if (/^(ts|timestamp)$/.test(last) && /slack|message|thread|timestamp of/.test(desc + hint.name.toLowerCase()))
    return `${1748772000 + rng.int(0, 86400)}.${String(rng.int(0, 999999)).padStart(6, '0')}`;
  if (
    (last === 'at' && words.length > 1) ||
    has('timestamp', 'datetime') ||
    (has('time') && !has('zone', 'timezone', 'out', 'timeout') && /iso|date|time/.test(desc))
  )
    return faker.date
      .between({ from: '2026-01-01T00:00:00Z', to: '2026-05-31T00:00:00Z' })
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  if (has('error')) return rng.pick(['Connection timed out after 30s', 'Authentication failed: token expired', 'Rate limit exceeded']);
  if (has('branch', 'base', 'head') && !has('url') && last !== 'id')
    return last === 'base' ? 'main' : `feature/${theme.topic}-${rng.pick(['fix', 'cleanup', 'export', 'retry'])}`;
  if (/(element )?ref(erence)? (from|in) the (page )?snapshot|snapshot ref/.test(desc)) return `e${rng.int(2, 99)}`;
  if (has('repo', 'repository') && has('path', 'dir', 'directory')) return theme.baseDir;
  if (last === 'ref' || last === 'reference') {
    if (/snapshot|element/.test(desc)) return `e${rng.int(2, 99)}`;
    return `feature/${theme.topic}-update`;
  }
  if (last === 'uid' && /element|snapshot/.test(desc)) return `${rng.int(1, 9)}_${rng.int(2, 60)}`;
  if (last === 'id' || last === 'ids') {
    if (ent === 'channel') return `C${alnum(rng, 8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`;
    if (ent === 'user' && /slack/.test(desc)) return `U${alnum(rng, 8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`;
    if (ent === 'connection') return `conn-${alnum(rng, 8)}`;
    const prefix = (ent ?? 'obj').replace(/[^a-z]/g, '').slice(0, 3) || 'obj';
    return `${prefix}_${alnum(rng, 12, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`;
  }
  if (last === 'key' && !/api|secret/.test(desc))
    return `${ent && ent !== 'key' ? ent : rng.pick(['user', 'session', 'cart', 'order'])}:${rng.int(1000, 9999)}`;
  const fileish = /\bfiles?\b|\bpath\b|director/.test(desc) || hint.fileContext === true;
  if (
    ((has('path', 'file', 'filename', 'dir', 'directory', 'folder') || (has('source', 'destination', 'dest', 'target') && fileish)) && !has('url', 'name')) ||
    (last === 'name' && has('file'))
  ) {
    const folder = rng.pick(FOLDERS) ?? 'docs';
    const file = `${theme.topic}-${rng.pick(['summary', 'notes', 'plan', 'report', 'config'])}.${rng.pick(EXTENSIONS) ?? 'md'}`;
    const repoRelative = (hint.repoContext || /repo|repository|branch/.test(desc)) && !hint.fileContext;
    const dirLike =
      has('dir', 'directory', 'folder') ||
      (/directory|folder/.test(desc) && !/file/.test(desc)) ||
      (last === 'path' && (hint.listing || ['directory', 'folder', 'dir', 'tree'].includes(hint.toolEntity ?? '')));
    if (dirLike) return repoRelative ? folder : `${theme.baseDir}/${folder}`;
    if (has('filename') || (last === 'name' && has('file'))) return file;
    return repoRelative ? `${folder}/${file}` : `${theme.baseDir}/${folder}/${file}`;
  }
  if (has('owner', 'org', 'organization', 'organisation', 'namespace', 'workspace', 'tenant', 'team')) return theme.org;
  if (has('repo', 'repository', 'project')) return theme.project;
  if (has('user', 'username', 'login', 'assignee', 'author', 'reviewer', 'member', 'actor')) return theme.user;
  if (has('color', 'colour') || (/colou?r/.test(desc) && /hex/.test(desc))) return `#${hex(rng, 6)}`;
  if (has('title', 'subject', 'summary', 'headline')) return title(rng, theme);
  if (
    has(
      'description',
      'body',
      'content',
      'text',
      'message',
      'comment',
      'note',
      'observation',
      'reason',
      'instruction',
      'prompt',
      'thought',
      'caption',
      'detail',
    )
  )
    return sentence(faker, rng, theme);
  if (has('sql') || (has('query') && /sql/.test(desc)))
    return `SELECT id, name, status FROM ${theme.topic}s WHERE created_at >= '2026-05-01' ORDER BY created_at DESC LIMIT 20`;
  if (has('query', 'q', 'search', 'keyword', 'term', 'keywords'))
    return `${theme.topic} ${rng.pick(['status', 'report', 'errors', 'owner', 'summary', 'trends']) ?? 'report'}`;
  if (has('pattern', 'glob')) return rng.pick(['*.md', '**/*.ts', '*.log', 'src/**/*.json']) ?? '*.md';
  if (has('code', 'script', 'function', 'expression', 'javascript', 'js'))
    return /javascript|function|page|browser/.test(desc) ? '() => document.title' : `print("${theme.topic} check")`;
  if (has('selector', 'css', 'element')) return rng.pick(['#checkout-button', 'button[type="submit"]', 'input[name="email"]', '.nav-link.active']) ?? '#submit';
  if (has('language', 'lang', 'locale')) return /programming|code|syntax/.test(desc) ? 'typescript' : 'en-US';
  if (has('timezone', 'tz')) return faker.location.timeZone();
  if (has('country')) return /code|iso/.test(desc) ? 'US' : faker.location.country();
  if (has('city')) return faker.location.city();
  if (has('address', 'location', 'origin', 'destination', 'place')) return `${faker.location.streetAddress()}, ${faker.location.city()}`;
  if (has('region')) return /aws|cloud/.test(desc) ? 'us-east-1' : faker.location.state();
  if (has('currency')) return 'USD';
  if (has('version')) return `${rng.int(1, 4)}.${rng.int(0, 12)}.${rng.int(0, 9)}`;
  if (has('image')) return /docker|container|kubernetes|pod/.test(desc) ? `nginx:1.27` : `${theme.baseDir}/assets/${theme.topic}-banner.png`;
  if (has('method')) return /http|get|post/i.test(desc) ? 'POST' : 'default';
  if (has('status', 'state')) return rng.pick(['open', 'active', 'pending', 'completed']) ?? 'open';
  if (has('label', 'tag', 'category', 'topic')) return theme.topic;
  if (has('cursor', 'token', 'after', 'before') && /page|cursor|pagination/.test(desc)) return Buffer.from(`cursor:${rng.int(10, 99)}`).toString('base64');
  if (has('secret', 'password', 'token')) return `tok_${alnum(rng, 24)}`;
  if (has('mime', 'contenttype') || (has('content') && has('type'))) return 'application/json';
  if (has('field', 'property', 'column', 'attribute')) return rng.pick(['status', 'created_at', 'owner', 'priority']) ?? 'status';
  if (has('command', 'cmd')) return rng.pick(['ls -la', 'git status', 'npm test']) ?? 'ls -la';
  if (has('host', 'hostname', 'server')) return `db.internal.${theme.domain}`;
  if (has('emoji', 'reaction')) return rng.pick(['thumbsup', 'white_check_mark', 'eyes', 'tada']) ?? 'thumbsup';
  if (has('date', 'since', 'until', 'due', 'deadline') && !/format/.test(desc))
    return faker.date.between({ from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' }).toISOString().slice(0, 10);
  if (has('type', 'kind') && (has('entity') || /entity|node/.test(desc))) return rng.pick(['person', 'project', 'organization', 'service']) ?? 'person';
  if (has('type', 'kind', 'mode')) return rng.pick(['default', 'standard']) ?? 'default';
  if (/\b(the )?name of (the|an?) /.test(desc) || (has('from', 'to') && /entity|node/.test(desc)))
    return /entity|node|person|user/.test(desc) ? theme.person : `${theme.topic}-${hint.toolEntity ?? 'item'}`;
  if (last === 'name' || has('name')) {
    if (has('first')) return theme.person.split(' ')[0];
    if (has('last', 'family')) return theme.person.split(' ')[1];
    if (has('full', 'display', 'person', 'contact', 'customer', 'employee') || ent === 'user' || ent === 'person' || ent === 'contact') return theme.person;
    const e = ent && ent !== 'name' ? ent : hint.toolEntity;
    if (e === 'entity' || e === 'node') return theme.person;
    return `${theme.topic}-${e && e.length <= 12 ? e : rng.pick(['prod', 'main', 'archive', 'team'])}`;
  }
  return undefined;
}

const COUNT_WORDS = [
  'head',
  'tail',
  'line',
  'limit',
  'count',
  'page',
  'perpage',
  'size',
  'depth',
  'max',
  'min',
  'top',
  'first',
  'last',
  'n',
  'k',
  'num',
  'number',
  'offset',
  'skip',
  'result',
  'item',
  'entry',
  'row',
  'record',
  'retry',
  'attempt',
  'step',
  'total',
  'level',
  'index',
  'length',
  'width',
  'height',
  'port',
  'year',
  'month',
  'day',
  'hour',
  'replica',
  'batch',
];
const FRACTION_WORDS = [
  'score',
  'threshold',
  'ratio',
  'fraction',
  'probability',
  'weight',
  'temperature',
  'confidence',
  'similarity',
  'rate',
  'factor',
  'scale',
  'amount',
  'price',
  'lat',
  'latitude',
  'lng',
  'lon',
  'longitude',
];

/**
 * Whether a `type: number` parameter counts things (lines, items, pages, depth), so a
 * fractional value would be nonsense (`head: 13.65`): from its name words or a description
 * such as "the last N lines" or "maximum number of results".
 */
export function countsThings(hint: Pick<ValueHint, 'name' | 'description'>): boolean {
  const words = nameWords(hint.name).map(singular);
  if (
    words.some((w) => FRACTION_WORDS.includes(w)) ||
    /\b(decimal|fraction|ratio|between 0(\.0)? and 1(\.0)?\b|percentage|probability)/i.test(hint.description)
  )
    return false;
  if (words.some((w) => COUNT_WORDS.includes(w) || /^max|^min/.test(w))) return true;
  return /\bN\b|\b(number of|how many|count of)\b/i.test(hint.description);
}

/** A realistic number for a parameter, or undefined. The sampler clamps it into the schema's bounds. */
export function realisticNumber(hint: ValueHint, rng: Rng): number | undefined {
  const words = nameWords(hint.name).map(singular);
  const has = (...w: string[]): boolean => w.some((x) => words.includes(x));
  const desc = hint.description.toLowerCase();
  // Points in time (`timestamp`, `createdAt`, `epoch`) are of this decade, in seconds unless the name or description says ms.
  if (has('timestamp', 'ts', 'epoch') || (words.length > 1 && words[words.length - 1] === 'at') || /\b(unix|epoch)\b|\btimestamp\b/.test(desc)) {
    const seconds = 1767225600 + rng.int(0, 180 * 86400);
    return has('ms', 'millis') || /millisecond/.test(desc) ? seconds * 1000 : seconds;
  }
  // Counters of a process (`thoughtNumber`, `totalThoughts`, `step`) are small.
  if (has('thought', 'step', 'attempt', 'round', 'revision', 'iteration', 'total', 'retry', 'retries')) return rng.int(1, 5);
  if (has('length')) return rng.int(1, 40);
  if (has('head', 'tail') || (has('line', 'lines') && /\bN\b|number of/.test(hint.description))) return rng.pick([5, 10, 20, 50]);
  if (has('limit', 'perpage', 'size', 'max', 'top', 'count', 'k', 'n', 'first', 'last', 'result', 'results') || (has('per') && has('page')))
    return rng.pick([5, 10, 20, 25, 50]);
  if (has('page')) return rng.int(1, 3);
  if (has('offset', 'skip', 'start', 'from')) return 0;
  if (has('port')) return rng.pick([8080, 3000, 5432, 6379]);
  if (has('timeout', 'delay', 'wait', 'duration', 'interval', 'ms', 'millisecond')) return /second/.test(desc) && !/milli/.test(desc) ? 30 : 5000;
  if (has('width')) return rng.pick([1024, 1280, 1366, 1440, 1920]);
  if (has('height')) return rng.pick([720, 768, 800, 900, 1080]);
  if (has('x', 'y', 'left', 'top')) return rng.int(40, 900);
  if (has('lat', 'latitude')) return Math.round((37.7749 + (rng.next() - 0.5) / 10) * 1e4) / 1e4;
  if (has('lng', 'lon', 'long', 'longitude')) return Math.round((-122.4194 + (rng.next() - 0.5) / 10) * 1e4) / 1e4;
  if (has('radius', 'distance')) return rng.pick([500, 1000, 5000]);
  if (has('year')) return 2026;
  if (has('month')) return rng.int(1, 12);
  if (has('day', 'days')) return rng.pick([1, 7, 14, 30]);
  if (has('hour', 'hours')) return rng.pick([1, 6, 24]);
  if (has('replica', 'replicas')) return rng.int(2, 5);
  if (has('depth', 'level')) return rng.int(1, 3);
  if (has('line')) return rng.int(1, 240);
  if (has('ttl', 'expire', 'expiry', 'expiration', 'second', 'seconds')) return 3600;
  if (has('priority', 'severity')) return rng.int(1, 4);
  if (has('id', 'number', 'num')) return rng.int(12, 4800);
  if (has('quality', 'percent', 'percentage')) return rng.pick([80, 90]);
  if (has('index')) return rng.int(0, 4);
  return undefined;
}
