/** The demo vendor's data set (examples/vendor/data.ts): deterministic people, ranked search, reports. */
import { describe, expect, it } from 'vitest';
import { people, reportRows, searchPeople } from '../../examples/vendor';

describe('data set', () => {
  it('is ~3,000 deterministic, frozen people with unique ids and .example e-mails, built once', () => {
    const all = people();
    expect(all).toBe(people());
    expect(all).toHaveLength(3_000);
    expect(all.map((p) => p.id)).toEqual(Array.from({ length: 3_000 }, (_, i) => i + 1));
    expect(new Set(all.map((p) => p.email)).size).toBe(3_000);
    expect(all.every((p) => /^[a-z0-9.]+@[a-z0-9]+\.example$/.test(p.email))).toBe(true);
    expect(Object.isFrozen(all) && Object.isFrozen(all[0])).toBe(true);
    expect(Object.keys(all[0] ?? {})).toEqual(['id', 'name', 'title', 'company', 'city', 'email']);
  });

  it('ranks name prefix, then family-name prefix, then title/company/city, case-insensitively', () => {
    // No first name starts with "lov": the Lovelaces (family-name prefix) come first, sorted by name,
    // then the people of Foxglove Studios (company match).
    const { total, items } = searchPeople('  LOV ', 3_000);
    expect(total).toBe(items.length);
    const lovelaces = items.filter((p) => p.name.endsWith(' Lovelace'));
    expect(lovelaces.length).toBeGreaterThan(0);
    expect(items.slice(0, lovelaces.length)).toEqual(lovelaces);
    expect(lovelaces.map((p) => p.name)).toEqual(lovelaces.map((p) => p.name).sort());
    expect(items.slice(lovelaces.length).every((p) => p.company === 'Foxglove Studios')).toBe(true);
    expect(total).toBe(
      people().filter((p) => lovelaces.includes(p) || p.company === 'Foxglove Studios').length,
    );

    const ma = searchPeople('ma', 3_000).items;
    const firstLater = ma.findIndex((p) => !p.name.toLowerCase().startsWith('ma'));
    expect(firstLater).toBeGreaterThan(0);
    expect(ma.slice(firstLater).some((p) => p.name.toLowerCase().startsWith('ma'))).toBe(false);

    const berlin = searchPeople('berlin', 3_000);
    expect(berlin.total).toBe(people().filter((p) => p.city === 'Berlin').length);
    expect(searchPeople('staff engineer', 5).items.every((p) => p.title === 'Staff Engineer')).toBe(true);
    expect(searchPeople('   ', 20)).toEqual({ total: 0, items: [] });
    expect(searchPeople('a', 7).items).toHaveLength(7);
  });

  it('reports twelve months, the same rows for the same id', () => {
    expect(reportRows('q3')).toEqual(reportRows('q3'));
    expect(reportRows('q3')).not.toEqual(reportRows('q4'));
    expect(reportRows('q3').map((row) => row.month)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}`),
    );
  });
});
