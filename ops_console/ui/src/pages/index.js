// Every signed-in page: its path (after the "#"), its title and its component. A page component
// gets { me, query } (the signed-in user as /api/auth/me gives it, the fragment's query).
import { Overview } from './overview.js';
import { MobileDashboard } from './mobile-dashboard.js';
import { MobileTickets } from './mobile-tickets.js';
import { MobileFeed } from './mobile-feed.js';
import { MobileFinance } from './mobile-finance.js';
import { MobileEngagement } from './mobile-engagement.js';
import { Preferences } from './preferences.js';

export const PAGES = [
  { path: '/', title: 'Overview', component: Overview },
  { path: '/m', title: 'Dashboard', component: MobileDashboard },
  { path: '/m/tickets', title: 'Tickets', component: MobileTickets },
  { path: '/m/feed', title: 'Analyzer feed', component: MobileFeed },
  { path: '/m/finance', title: 'Finance', component: MobileFinance },
  { path: '/m/engagement', title: 'Engagement', component: MobileEngagement },
  { path: '/preferences', title: 'Preferences', component: Preferences },
];
