import { render } from 'preact';
import { createBrowserServices } from '@/lib/ui/shared/browser-services';
import { ServicesContext } from '@/lib/ui/shared/services-context';
import { OptionsApp } from './options-app';
import '@/components/ui.css';
import './style.css';

render(
  <ServicesContext.Provider value={createBrowserServices()}>
    <OptionsApp />
  </ServicesContext.Provider>,
  document.getElementById('app')!,
);
