// Every signed-in page: its path (after the "#"), its title and its component. A page component
// gets { me, query } (the signed-in user as /api/auth/me gives it, the fragment's query).
import { Overview } from './overview.js';
import { Preferences } from './preferences.js';

export const PAGES = [
  { path: '/', title: 'Overview', component: Overview },
  { path: '/preferences', title: 'Preferences', component: Preferences },
];
