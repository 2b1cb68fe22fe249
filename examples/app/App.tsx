import { useEffect } from 'react';
import { StitchScope } from '../../src/react/index';
import { LedgerTable } from './components/LedgerTable';
import { VendorControls } from './components/VendorControls';
import { PAGES, pageOf } from './pages';
import { Routes } from './Routes';
import { Link, navigate, usePathname } from './router';

/**
 * The shell: navigation, the current page inside a `StitchScope` keyed by the pathname (so a route
 * change aborts the page's requests), and the vendor's controls and ledger beside it.
 */
export function App() {
  const pathname = usePathname();
  const page = pageOf(pathname);

  useEffect(() => {
    if (pathname === '/') navigate(PAGES[0].path, { replace: true });
  }, [pathname]);

  useEffect(() => {
    document.title = page ? `${page.title} · Stitch demo` : 'Stitch demo';
  }, [page]);

  return (
    <>
      <header className="top">
        <span className="brand">Stitch demo</span>
        <nav aria-label="Demo pages">
          {PAGES.map(({ path, title }) => (
            <Link key={path} href={path} className={page?.path === path ? 'active' : undefined}>
              {title}
            </Link>
          ))}
        </nav>
      </header>
      <div className="layout">
        <main>
          <StitchScope resetKey={pathname}>
            <Routes pathname={pathname} />
          </StitchScope>
        </main>
        <aside aria-label="Vendor">
          <VendorControls />
          <LedgerTable />
        </aside>
      </div>
    </>
  );
}
