import {
  createContext,
  useCallback,
  useContext,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { CLIPBOARD_TOAST_MS, ERROR_MESSAGES, toUserMessage } from '@unit/protocol';

interface Toast {
  id: number;
  title: string;
  description?: string;
  tone: 'info' | 'error' | 'success';
}

interface ToastApi {
  show(toast: Omit<Toast, 'id'>, durationMs?: number): void;
  /** SPEC §8: 'An error occurred' with the message mapped by toUserMessage. */
  error(error: unknown): void;
  /** Copies text and confirms for 1.5 s (SPEC §9). */
  copy(text: string): Promise<void>;
}

const ToastContext = createContext<ToastApi | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const show = useCallback((toast: Omit<Toast, 'id'>, durationMs = 5_000) => {
    const id = next.current++;
    setToasts((list) => [...list, { ...toast, id }]);
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), durationMs);
  }, []);
  const api = useMemo<ToastApi>(
    () => ({
      show,
      error: (error) =>
        show({ title: ERROR_MESSAGES.generic, description: toUserMessage(error), tone: 'error' }),
      copy: async (text) => {
        await navigator.clipboard?.writeText(text);
        show({ title: 'Copied to clipboard', tone: 'success' }, CLIPBOARD_TOAST_MS);
      },
    }),
    [show],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <ol className="toasts" aria-live="polite">
        {toasts.map((t) => (
          <li key={t.id} className={`toast toast--${t.tone}`}>
            {/* The live role on an inner element: a list item keeps its own role (axe: list). */}
            <div role={t.tone === 'error' ? 'alert' : 'status'}>
              <strong>{t.title}</strong>
              {t.description && <span>{t.description}</span>}
            </div>
          </li>
        ))}
      </ol>
    </ToastContext.Provider>
  );
}

export function useToasts(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToasts outside ToastProvider');
  return api;
}
