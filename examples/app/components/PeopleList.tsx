import type { Person } from '../../vendor/index';

/** People as the search and the directory show them: name, then title, company and city. */
export function PeopleList({ people }: { people: readonly Person[] }) {
  return (
    <ul className="people">
      {people.map((person) => (
        <li key={person.id}>
          <strong>{person.name}</strong>
          <span>{`${person.title} · ${person.company}`}</span>
          <span className="muted">{person.city}</span>
        </li>
      ))}
    </ul>
  );
}
