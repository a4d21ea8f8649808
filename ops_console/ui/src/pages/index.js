// Every signed-in page: its path (after the "#"), its title, its section of the top bar and its
// component, or `load`, which imports the page's module when the page is first opened (so that
// the first visit fetches only the shell and the pages listed statically here; every new page is
// loaded this way: `load` imports its module and returns its component). A page component gets
// { me, query, onMeChange } (the signed-in user as /api/auth/me gives it, the fragment's query). A section's pages are listed under the top bar when it has more than one; a
// page with `nav: false` (a detail page, reached from a list) is not listed. `admin: true` pages
// (and a section whose pages all are) are shown to administrators only.
import { Overview } from './overview.js';
import { MobileDashboard } from './mobile-dashboard.js';
import { MobileTickets } from './mobile-tickets.js';
import { MobileFeed } from './mobile-feed.js';
import { MobileFinance } from './mobile-finance.js';
import { MobileEngagement } from './mobile-engagement.js';

// The top bar's sections, in order; `path` is the page a section's link opens.
export const SECTIONS = [
  { id: 'overview', name: 'Overview', path: '/' },
  { id: 'analyzer', name: 'Analyzer', path: '/analyzer' },
  { id: 'phishing', name: 'Phishing', path: '/phishing' },
  { id: 'distributor', name: 'Distributor', path: '/distributor' },
  { id: 'security', name: 'Security', path: '/security/mail' },
  { id: 'data', name: 'Data', path: '/data/webhooks' },
  { id: 'admin', name: 'Admin', path: '/admin/integrations' },
  { id: 'mobile', name: 'Mobile', path: '/m' },
  { id: 'preferences', name: 'Preferences', path: '/preferences' },
];

export const PAGES = [
  { path: '/', title: 'Overview', section: 'overview', component: Overview },
  { path: '/m', title: 'Dashboard', section: 'mobile', component: MobileDashboard },
  { path: '/m/tickets', title: 'Tickets', section: 'mobile', component: MobileTickets },
  { path: '/m/feed', title: 'Analyzer feed', section: 'mobile', component: MobileFeed },
  { path: '/m/finance', title: 'Finance', section: 'mobile', component: MobileFinance },
  { path: '/m/engagement', title: 'Engagement', section: 'mobile', component: MobileEngagement },
  { path: '/preferences', title: 'Preferences', section: 'preferences', load: () => import('./preferences.js').then((m) => m.Preferences) },

  // analyzer

  // phishing

  // distributor and accounting

  // security
  { path: '/security/mail', title: 'Held mail', section: 'security', load: () => import('./security-mail.js').then((m) => m.SecurityMail) },
  { path: '/security/delivered', title: 'Delivered mail', section: 'security', load: () => import('./security-delivered.js').then((m) => m.SecurityDelivered) },
  { path: '/security/remediation', title: 'Mailbox remediation', nav: 'Remediation', section: 'security', load: () => import('./security-remediation.js').then((m) => m.SecurityRemediation) },
  { path: '/security/mfa', title: 'MFA flagged users', nav: 'MFA', section: 'security', load: () => import('./security-mfa.js').then((m) => m.SecurityMfa) },
  { path: '/security/endpoint', title: 'Endpoint security', nav: 'Endpoint', section: 'security', load: () => import('./security-endpoint.js').then((m) => m.SecurityEndpoint) },
  { path: '/security/backup', title: 'Backup', section: 'security', load: () => import('./security-backup.js').then((m) => m.SecurityBackup) },
  { path: '/security/rmm', title: 'Remote management', nav: 'Scripts', section: 'security', load: () => import('./security-rmm.js').then((m) => m.SecurityRmm) },

  // data and webhooks

  // administration (admin: true)
];
