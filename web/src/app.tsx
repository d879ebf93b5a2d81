/**
 * The app: which page a path shows, and the session every page but sign-in needs (loaded once; a
 * 401 from any call later sends the browser back to sign-in).
 */
import { useEffect } from 'preact/hooks';
import { ApiError, api, sessionEnded } from './api.js';
import { AppHeader } from './components/app-header.js';
import { ActionReviewPage } from './pages/action-review-page.js';
import { AdminTokensPage } from './pages/admin-tokens-page.js';
import { AdminWebhooksPage } from './pages/admin-webhooks-page.js';
import { EvaluationPage } from './pages/evaluation-page.js';
import { InspectPage } from './pages/inspect-page.js';
import { LoadingPage } from './pages/loading-page.js';
import { LoginPage } from './pages/login-page.js';
import { MissionReviewPage } from './pages/mission-review-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { OAuthConsentPage } from './pages/oauth-consent-page.js';
import { ObjectPage } from './pages/object-page.js';
import { PoliciesPage } from './pages/policies-page.js';
import { PolicyPage } from './pages/policy-page.js';
import { QueuePage } from './pages/queue-page.js';
import { ReviewPage } from './pages/review-page.js';
import { SkillPage } from './pages/skill-page.js';
import { UnknownKindPage } from './pages/unknown-kind-page.js';
import { locationStore, navigate } from './stores/location-store.js';
import { type Session, sessionStore } from './stores/session-store.js';
import { useSelector } from './stores/use-selector.js';

/** The page for `path`, signed in. */
function page(path: string) {
  const parts = path.split('/').filter(Boolean);
  if (path === '/review') return <QueuePage />;
  if (path === '/review/policies') return <PoliciesPage />;
  if (path === '/admin/tokens') return <AdminTokensPage />;
  if (path === '/admin/webhooks') return <AdminWebhooksPage />;
  if (path === '/oauth/consent') return <OAuthConsentPage />;
  if (parts[0] === 'skills' && parts.length === 2)
    return <SkillPage slug={decodeURIComponent(parts[1] ?? '')} />;
  if (parts[0] === 'objects' && parts.length === 2 && /^\d{1,15}$/.test(parts[1] ?? ''))
    return <ObjectPage id={Number(parts[1])} />;
  if (parts[0] === 'inspect' && parts.length === 3) {
    return <InspectPage kind={decodeURIComponent(parts[1] ?? '')} id={decodeURIComponent(parts[2] ?? '')} />;
  }
  if (
    parts[0] === 'review' &&
    parts[1] === 'runs' &&
    parts.length === 3 &&
    /^\d{1,15}$/.test(parts[2] ?? '')
  ) {
    return <ReviewPage runId={Number(parts[2])} />;
  }
  if (
    parts[0] === 'review' &&
    parts[1] === 'actions' &&
    parts.length === 3 &&
    /^\d{1,15}$/.test(parts[2] ?? '')
  ) {
    return <ActionReviewPage id={Number(parts[2])} />;
  }
  if (
    parts[0] === 'review' &&
    parts[1] === 'missions' &&
    parts.length === 3 &&
    /^\d{1,15}$/.test(parts[2] ?? '')
  ) {
    return <MissionReviewPage id={Number(parts[2])} />;
  }
  if (
    parts[0] === 'review' &&
    parts[1] === 'evaluations' &&
    parts.length === 3 &&
    /^\d{1,15}$/.test(parts[2] ?? '')
  ) {
    return <EvaluationPage id={Number(parts[2])} />;
  }
  if (parts[0] === 'review' && parts[1] === 'policies' && parts.length === 3) {
    return <PolicyPage slug={decodeURIComponent(parts[2] ?? '')} />;
  }
  if (
    parts[0] === 'review' &&
    parts.length === 3 &&
    !['runs', 'actions', 'missions', 'evaluations', 'policies'].includes(parts[1] ?? '')
  ) {
    // Kinds yet to come: said plainly, not a broken page.
    return <UnknownKindPage kind={decodeURIComponent(parts[1] ?? '').replace(/s$/, '')} />;
  }
  return <NotFoundPage />;
}

export function App() {
  const path = useSelector(locationStore, (c) => c.path);
  const status = useSelector(sessionStore, (c) => c.status);

  useEffect(() => {
    if (path === '/login' || status !== 'loading') return;
    api<{ session: Session }>('GET', '/session')
      .then(({ session }) => sessionStore.trigger.signedIn({ session }))
      .catch((error: unknown) => {
        if (!(error instanceof ApiError) || error.status !== 401) sessionEnded();
      });
  }, [path, status]);

  useEffect(() => {
    // Same-site links move within the app without reloading it.
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
        return;
      const anchor = (event.target as Element | null)?.closest?.('a');
      if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
      const url = new URL(anchor.href, window.location.href);
      if (url.origin !== window.location.origin || url.pathname.startsWith('/api/')) return;
      if (url.pathname === window.location.pathname && url.hash) return;
      event.preventDefault();
      navigate(url.pathname + url.search);
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, []);

  if (path === '/login') return <LoginPage />;
  if (status !== 'signed-in') {
    return <LoadingPage />;
  }
  return (
    <>
      <AppHeader />
      {page(path)}
    </>
  );
}
