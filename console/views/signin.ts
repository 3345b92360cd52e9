/**
 * Sign-in: a token field (a JWT in AWS) and, on the local stack only, a choice of the scenario's
 * principals (`local:<principal>`). The token goes to sessionStorage and leaves the DOM at once.
 */
import { byId, el } from "../dom.ts";

/** The local stack's principals; any failure means "not offered", silently. */
export async function fetchLocalPrincipals(): Promise<string[]> {
  try {
    const response = await fetch("/__local/principals", { cache: "no-store", credentials: "omit" });
    if (!response.ok) return [];
    const body = (await response.json()) as { principals?: unknown };
    return Array.isArray(body.principals)
      ? body.principals.filter((p): p is string => typeof p === "string" && /^[\w.:@/+=,-]{1,256}$/.test(p))
      : [];
  } catch {
    return [];
  }
}

export class SignInView {
  private readonly section = byId("signin", HTMLElement);
  private readonly form = byId("signin-form", HTMLFormElement);
  private readonly token = byId("token", HTMLInputElement);
  private readonly localWrap = byId("local-principals", HTMLDivElement);
  private readonly principal = byId("principal", HTMLSelectElement);
  private readonly error = byId("signin-error", HTMLParagraphElement);

  constructor(onSignIn: (token: string) => void) {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = this.token.value.trim();
      const chosen = this.localWrap.hidden ? "" : this.principal.value;
      const token = typed !== "" ? typed : chosen ? `local:${chosen}` : "";
      if (token === "" || /\s/.test(token)) {
        this.fail(
          `Enter a token (no spaces)${this.localWrap.hidden ? "." : ", or choose a local principal."}`,
        );
        this.token.focus();
        return;
      }
      this.token.value = "";
      this.fail("");
      onSignIn(token);
    });
  }

  offerPrincipals(principals: string[]): void {
    if (principals.length === 0) return;
    this.principal.replaceChildren(...principals.map((p) => el("option", { value: p }, p)));
    this.localWrap.hidden = false;
    byId("token-label", HTMLLabelElement).textContent = "Or a token (overrides the principal)";
  }

  show(message = ""): void {
    this.section.hidden = false;
    this.fail(message);
    (this.localWrap.hidden ? this.token : this.principal).focus();
  }

  hide(): void {
    this.section.hidden = true;
  }

  private fail(text: string): void {
    this.error.textContent = text;
    this.error.hidden = text === "";
  }
}
