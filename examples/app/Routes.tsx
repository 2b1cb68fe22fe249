import { BreakerPage } from './pages/BreakerPage';
import { CheckoutPage } from './pages/CheckoutPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { PeoplePage } from './pages/PeoplePage';
import { RouteChangePage } from './pages/RouteChangePage';
import { SearchPage } from './pages/SearchPage';
import { TodosPage } from './pages/TodosPage';

/** The page for a pathname. */
export function Routes({ pathname }: { pathname: string }) {
  switch (pathname) {
    case '/search':
      return <SearchPage />;
    case '/route-change':
      return <RouteChangePage left={false} />;
    case '/route-change/left':
      return <RouteChangePage left />;
    case '/checkout':
      return <CheckoutPage />;
    case '/breaker':
      return <BreakerPage />;
    case '/people':
      return <PeoplePage />;
    case '/todos':
      return <TodosPage />;
    default:
      return <NotFoundPage />;
  }
}
