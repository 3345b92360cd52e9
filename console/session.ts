/** The sign-in token lives in this tab's sessionStorage only (never localStorage, never a cookie). */
const KEY = "runtime-logs.token";

export const session = {
  token(): string | null {
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return null;
    }
  },
  signIn(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  signOut(): void {
    sessionStorage.removeItem(KEY);
  },
};
