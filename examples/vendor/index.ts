/** The demo vendor: a slow, breakable JSON API with a ledger, for the demo app, stories and tests. */
export { type Controls, DEFAULT_CONTROLS, parseControls } from './controls';
export { type Person, people, type ReportRow, reportRows, type SearchResult, searchPeople } from './data';
export type { Charge, Endpoint, EndpointStats, LedgerEntry, LedgerSnapshot, Outcome } from './ledger';
export { type PeoplePage, peoplePage } from './pages';
export type { Todo } from './todos';
export { createDemoVendor, type DemoVendor } from './vendor';
