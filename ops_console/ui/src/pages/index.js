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
  { path: '/analyzer', title: 'Tickets', section: 'analyzer', load: () => import('./analyzer-tickets.js').then((m) => m.AnalyzerTickets) },
  { path: '/analyzer/analysis', title: 'Analysis', section: 'analyzer', nav: false, load: () => import('./analyzer-analysis.js').then((m) => m.AnalyzerAnalysis) },
  { path: '/analyzer/reports', title: 'Reports', section: 'analyzer', load: () => import('./analyzer-reports.js').then((m) => m.AnalyzerReports) },

  // phishing
  { path: '/phishing', title: 'Campaigns', section: 'phishing', load: () => import('./phishing-campaigns.js').then((m) => m.PhishingCampaigns) },
  { path: '/phishing/campaign', title: 'Campaign', section: 'phishing', nav: false, load: () => import('./phishing-campaign.js').then((m) => m.PhishingCampaign) },

  // distributor and accounting
  { path: '/distributor', title: 'Companies', section: 'distributor', load: () => import('./distributor-companies.js').then((m) => m.DistributorCompanies) },
  { path: '/distributor/company', title: 'Distributor company', section: 'distributor', nav: false, load: () => import('./distributor-company.js').then((m) => m.DistributorCompany) },
  { path: '/distributor/reviews', title: 'Match reviews', section: 'distributor', load: () => import('./distributor-reviews.js').then((m) => m.DistributorReviews) },
  { path: '/distributor/sync', title: 'Sync', section: 'distributor', load: () => import('./distributor-sync.js').then((m) => m.DistributorSync) },
  { path: '/distributor/accounting', title: 'Accounting', section: 'distributor', load: () => import('./distributor-accounting.js').then((m) => m.DistributorAccounting) },

  // security
  { path: '/security/mail', title: 'Held mail', section: 'security', load: () => import('./security-mail.js').then((m) => m.SecurityMail) },
  { path: '/security/delivered', title: 'Delivered mail', section: 'security', load: () => import('./security-delivered.js').then((m) => m.SecurityDelivered) },
  { path: '/security/remediation', title: 'Mailbox remediation', nav: 'Remediation', section: 'security', load: () => import('./security-remediation.js').then((m) => m.SecurityRemediation) },
  { path: '/security/mfa', title: 'MFA flagged users', nav: 'MFA', section: 'security', load: () => import('./security-mfa.js').then((m) => m.SecurityMfa) },
  { path: '/security/endpoint', title: 'Endpoint security', nav: 'Endpoint', section: 'security', load: () => import('./security-endpoint.js').then((m) => m.SecurityEndpoint) },
  { path: '/security/backup', title: 'Backup', section: 'security', load: () => import('./security-backup.js').then((m) => m.SecurityBackup) },
  { path: '/security/rmm', title: 'Remote management', nav: 'Scripts', section: 'security', load: () => import('./security-rmm.js').then((m) => m.SecurityRmm) },
  { path: '/security/access', title: 'Access gateway', nav: 'Access', section: 'security', load: () => import('./security-access.js').then((m) => m.SecurityAccess) },

  // data and webhooks
  { path: '/data/webhooks', title: 'PSA webhooks', nav: 'Webhooks', section: 'data', load: () => import('./data-webhooks.js').then((m) => m.DataWebhooks) },
  { path: '/data/sync', title: 'PSA sync', nav: 'Sync', section: 'data', load: () => import('./data-sync.js').then((m) => m.DataSync) },
  { path: '/data/tags', title: 'Tags', section: 'data', load: () => import('./data-tags.js').then((m) => m.DataTags) },
  { path: '/data/evidence', title: 'Log evidence', section: 'data', load: () => import('./data-evidence.js').then((m) => m.DataEvidence) },
  { path: '/data/api', title: 'API reference', nav: 'API', section: 'data', load: () => import('./data-api.js').then((m) => m.DataApi) },

  // administration (admin: true)
  { path: '/admin/integrations', title: 'Integrations', section: 'admin', admin: true, load: () => import('./admin-integrations.js').then((m) => m.AdminIntegrations) },
  { path: '/admin/scope', title: 'Scope and display', section: 'admin', admin: true, load: () => import('./admin-scope.js').then((m) => m.AdminScope) },
  { path: '/admin/notifications', title: 'Notifications', section: 'admin', admin: true, load: () => import('./admin-notifications.js').then((m) => m.AdminNotifications) },
  { path: '/admin/agents', title: 'Agent instances', nav: 'Agents', section: 'admin', admin: true, load: () => import('./admin-agents.js').then((m) => m.AdminAgents) },
  { path: '/admin/upload-tokens', title: 'Upload tokens', section: 'admin', admin: true, load: () => import('./admin-upload-tokens.js').then((m) => m.AdminUploadTokens) },
  { path: '/admin/morning', title: 'Morning summary', section: 'admin', admin: true, load: () => import('./admin-morning.js').then((m) => m.AdminMorning) },
  { path: '/admin/pipeline', title: 'Pipeline executions', nav: 'Pipeline', section: 'admin', admin: true, load: () => import('./admin-pipeline.js').then((m) => m.AdminPipeline) },
];
