/** A notice area: a polite live region for status, and an alert for errors (text only). */
import { byId } from "./dom.ts";

export class Notices {
  private readonly info: HTMLElement;
  private readonly error: HTMLElement;

  constructor(infoId: string, errorId: string) {
    this.info = byId(infoId, HTMLElement);
    this.error = byId(errorId, HTMLElement);
  }

  say(text: string): void {
    this.info.textContent = text;
    this.info.hidden = text === "";
  }

  /** What the status line says now. */
  text(): string {
    return this.info.textContent ?? "";
  }

  fail(text: string): void {
    this.error.textContent = text;
    this.error.hidden = text === "";
  }

  clear(): void {
    this.say("");
    this.fail("");
  }
}
