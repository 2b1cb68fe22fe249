/**
 * The demo vendor's data: a directory of ~3,000 people and per-id monthly reports, generated from the
 * committed lists in `lists.ts` with a seeded PRNG. Nothing is fetched or stored, and every run of the
 * demo (and of the tests) sees exactly the same records.
 */
import { CITIES, COMPANIES, FIRST_NAMES, LAST_NAMES, TITLES } from './lists';

/** One person in the demo directory. */
export interface Person {
  /** 1-based, stable across runs. */
  id: number;
  name: string;
  title: string;
  company: string;
  city: string;
  /** Unique; always on a `.example` domain. */
  email: string;
}

/** What a search found: how many people matched in all, and the best-ranked `limit` of them. */
export interface SearchResult {
  total: number;
  items: Person[];
}

/** One month of a report. */
export interface ReportRow {
  /** `YYYY-MM`. */
  month: string;
  orders: number;
  /** In currency units, two decimals. */
  revenue: number;
}

const PEOPLE_COUNT = 3_000;
/** Any constant works; changing it changes every record, which would break the tests' expectations. */
const SEED = 0x5717c4;

/** mulberry32: a tiny 32-bit PRNG; the same seed always yields the same sequence. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a, to turn a report id into a PRNG seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** A person plus the lower-cased text search compares against, computed once rather than per keystroke. */
interface Indexed {
  person: Person;
  name: string;
  /** The words of the name, so that "lov" finds "Ada Lovelace" ahead of a mere substring match. */
  words: string[];
  /** Title, company and city. */
  other: string;
}

let directory: Indexed[] | undefined;
let list: readonly Person[] | undefined;

/** Builds the directory on first use: importing the vendor (e.g. in Vite's config) costs nothing. */
function indexed(): Indexed[] {
  if (directory) return directory;
  const random = mulberry32(SEED);
  const emails = new Set<string>();
  directory = [];
  for (let id = 1; id <= PEOPLE_COUNT; id++) {
    const first = pick(random, FIRST_NAMES);
    const last = pick(random, LAST_NAMES);
    const title = pick(random, TITLES);
    const company = pick(random, COMPANIES);
    const city = pick(random, CITIES);
    const local = `${slug(first)}.${slug(last)}`;
    const domain = `${slug(company)}.example`;
    // Common names repeat within a company, as they do in a real directory; the address must not.
    let email = `${local}@${domain}`;
    for (let k = 2; emails.has(email); k++) email = `${local}${k}@${domain}`;
    emails.add(email);
    const name = `${first} ${last}`;
    // Frozen: search hands out these very objects, and one caller must not edit another's results.
    const person = Object.freeze({ id, name, title, company, city, email });
    const lower = name.toLowerCase();
    directory.push({
      person,
      name: lower,
      words: lower.split(' '),
      other: `${title}\n${company}\n${city}`.toLowerCase(),
    });
  }
  return directory;
}

/** The whole directory (~3,000 frozen records), built once on first call. Same data on every run. */
export function people(): readonly Person[] {
  list ??= Object.freeze(indexed().map((entry) => entry.person));
  return list;
}

/** 0 = name starts with the query, 1 = another word of the name does, 2 = name contains it,
 * 3 = title, company or city contains it, -1 = no match. */
function rank(entry: Indexed, q: string): number {
  if (entry.name.startsWith(q)) return 0;
  if (entry.words.some((word) => word.startsWith(q))) return 1;
  if (entry.name.includes(q)) return 2;
  return entry.other.includes(q) ? 3 : -1;
}

/**
 * Case-insensitive search over name, title, company and city. Results are ranked: name prefix first,
 * then a later name word's prefix (a family name), then anywhere in the name, then title, company or
 * city; ties sort by name, then id, so the order is total and stable. A blank query matches nobody.
 */
export function searchPeople(query: string, limit: number): SearchResult {
  const q = query.trim().toLowerCase();
  if (q === '') return { total: 0, items: [] };
  const hits: { rank: number; entry: Indexed }[] = [];
  for (const entry of indexed()) {
    const r = rank(entry, q);
    if (r >= 0) hits.push({ rank: r, entry });
  }
  hits.sort(
    (a, b) =>
      a.rank - b.rank ||
      (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0) ||
      a.entry.person.id - b.entry.person.id,
  );
  return { total: hits.length, items: hits.slice(0, Math.max(0, limit)).map((hit) => hit.entry.person) };
}

/** Twelve months (2025) of orders and revenue for report `id`; the same id always gives the same rows. */
export function reportRows(id: string): ReportRow[] {
  const random = mulberry32(hash(id));
  return Array.from({ length: 12 }, (_, i) => {
    const orders = 200 + Math.floor(random() * 1_000);
    const basket = 40 + random() * 80;
    return {
      month: `2025-${String(i + 1).padStart(2, '0')}`,
      orders,
      revenue: Math.round(orders * basket * 100) / 100,
    };
  });
}
