import { PageIntro } from '../components/PageIntro';

export function NotFoundPage() {
  return <PageIntro title="No such page">Pick one of the demo's pages above.</PageIntro>;
}
