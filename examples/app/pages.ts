/** The demo's pages, in the order the navigation lists them. */
export const PAGES = [
  { path: '/search', title: 'Search as you type' },
  { path: '/route-change', title: 'Route change' },
  { path: '/checkout', title: 'Checkout' },
  { path: '/breaker', title: 'Breaker' },
  { path: '/people', title: 'Infinite list' },
  { path: '/todos', title: 'Optimistic to-dos' },
] as const;

/** The page a pathname belongs to (`/route-change/left` belongs to `/route-change`). */
export function pageOf(pathname: string) {
  return PAGES.find((page) => pathname === page.path || pathname.startsWith(`${page.path}/`));
}
