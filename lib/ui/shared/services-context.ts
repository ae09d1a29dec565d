/** Hands the UiServices down the component tree, so tests can render pages with fakes. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { UiServices } from './services';

export const ServicesContext = createContext<UiServices | null>(null);

export function useServices(): UiServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices() outside <ServicesContext.Provider>.');
  return services;
}
