/** Small DOM helpers for rendering the popup and options with happy-dom. */
import { render, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';
import { ServicesContext } from '@/lib/ui/shared/services-context';
import type { UiServices } from '@/lib/ui/shared/services';
import { settle } from './fake-services';

export async function mount(node: ComponentChild, services: UiServices): Promise<HTMLElement> {
  const root = document.createElement('div');
  document.body.replaceChildren(root);
  await act(async () => {
    render(<ServicesContext.Provider value={services}>{node}</ServicesContext.Provider>, root);
  });
  await flush();
  return root;
}

/** Lets fake replies resolve and Preact re-render. */
export async function flush(): Promise<void> {
  await act(async () => {
    await settle();
  });
}

/** The control a <label> names (exact text), like Playwright's getByLabel. */
export function byLabel<T extends HTMLElement = HTMLInputElement>(root: ParentNode, text: string): T {
  const label = [...root.querySelectorAll('label')].find((l) => l.textContent?.trim() === text);
  if (!label) throw new Error(`no label "${text}"`);
  const control = label.htmlFor ? document.getElementById(label.htmlFor) : label.querySelector('input, select, textarea');
  if (!control) throw new Error(`label "${text}" names no control`);
  return control as T;
}

export function button(root: ParentNode, name: string): HTMLButtonElement {
  const found = [...root.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim() === name);
  if (!found) throw new Error(`no button "${name}" among: ${[...root.querySelectorAll('button')].map((b) => b.textContent).join(' | ')}`);
  return found;
}

export async function type(control: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  await act(async () => {
    control.value = value;
    control.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

export async function change(control: HTMLInputElement | HTMLSelectElement, value?: string | boolean): Promise<void> {
  await act(async () => {
    if (typeof value === 'boolean') (control as HTMLInputElement).checked = value;
    else if (value !== undefined) control.value = value;
    control.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await flush();
}

export async function click(el: HTMLElement): Promise<void> {
  await act(async () => {
    el.click();
  });
  await flush();
}

export function text(root: HTMLElement): string {
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}
