// Send interception (design §8). Enter (no Shift, not composing), a click on the send
// button and a composer form's submit are caught in the capture phase before the site
// sees them; the draft goes to the host (chat.prepare_send), the text it returns replaces
// the draft through the editor's input path, and the same gesture is replayed once so
// the site sends. One injection per send, however many events fire. A host that is
// missing, failing or slower than the time limit gets the draft sent unchanged.
// Only the user's own gestures act (docs/extension.md, "Hostile pages"): events a page's
// script dispatches are ignored, left to the page's own handlers. A submit is trusted even
// from the page's form.requestSubmit() (measured in Chromium 156), so a submit acts only
// while the user's own click on the button that submits it is being handled.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.SendInterceptor) return;
  const { readText, replaceText, settled } = W.editorInput;
  // The draft already carries a block: the same opening the host strips (memory/recall/inject.py).
  const PREPARED = /^---[ \t]*\n(?:[ \t]*\n)*\[Whiteboard (?:context|selection|background)[^\n]*\]/m;
  const SEND_TIMEOUT_MS = 1000;

  class SendInterceptor {
    // A draft that already carries a Whiteboard block (a replayed or re-sent prepared text).
    static isPrepared(draft) {
      return PREPARED.test(draft);
    }

    // adapter: the site adapter; prepare(draft, deadline) -> Promise<host reply>.
    constructor(adapter, prepare) {
      this.adapter = adapter;
      this.prepare = prepare;
      this.busy = false; // a send is being prepared: further send gestures are swallowed
      this.replaying = false; // our own replay of the gesture: let it through
      this.clicked = null; // the target of the user's click being handled in this task
    }

    install() {
      addEventListener("keydown", (e) => this.onKeydown(e), true);
      addEventListener("click", (e) => this.onClick(e), true);
      addEventListener("submit", (e) => this.onSubmit(e), true);
    }

    onKeydown(e) {
      if (!e.isTrusted) return;
      if (e.key !== "Enter" || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.isComposing || e.keyCode === 229) return; // IME composition: Enter picks a candidate
      const editor = this.adapter.editorFrom(e.target);
      if (editor) this.intercept(e, { kind: "enter", editor });
    }

    onClick(e) {
      if (!e.isTrusted || e.button !== 0) return;
      this.noteClick(e.target);
      const button = this.adapter.sendButtonFrom(e.target);
      if (button && !button.disabled) this.intercept(e, { kind: "click", button });
    }

    onSubmit(e) {
      const form = this.adapter.formFrom(e.target);
      if (form && this.byUsersClick(e)) this.intercept(e, { kind: "submit", form });
    }

    // The submit a click on a submit button causes (its default action, or the site's
    // handler calling requestSubmit(button)) comes within the click's task; the mark is
    // gone by the next one.
    noteClick(target) {
      this.clicked = target;
      setTimeout(() => { if (this.clicked === target) this.clicked = null; }, 0);
    }

    byUsersClick(e) {
      const submitter = e.submitter;
      return Boolean(e.isTrusted && submitter && this.clicked instanceof Node && submitter.contains(this.clicked));
    }

    intercept(e, trigger) {
      if (this.replaying || !W.page.chatEnabled) return;
      if (this.busy) {
        swallow(e);
        return;
      }
      const editor = trigger.editor || this.adapter.editorFor(trigger.button || trigger.form);
      if (!editor) return;
      const draft = readText(editor);
      if (!draft.trim() || SendInterceptor.isPrepared(draft)) return; // nothing to add, or added already
      swallow(e);
      this.busy = true;
      this.send(editor, draft, trigger).finally(() => { this.busy = false; });
    }

    async send(editor, draft, trigger) {
      let reply;
      try {
        reply = await this.prepare(draft, performance.now() + SEND_TIMEOUT_MS);
      } catch {
        reply = null; // whatever went wrong, the draft still goes
      }
      if (reply && reply.ok && reply.injected && editor.isConnected) {
        if (!(await replaceText(editor, reply.text))) await replaceText(editor, draft); // never send a mangled draft
        await settled(editor); // the editor's model holds the new text before the site reads it
      }
      this.replay(trigger, editor);
      this.adapter.noteSent();
    }

    // The same gesture again, once, for the site to handle as its own: only the composer's
    // own send button is clicked, only the composer's form submitted.
    replay(trigger, editor) {
      this.replaying = true;
      try {
        if (trigger.kind === "submit" && trigger.form.isConnected) {
          trigger.form.requestSubmit();
          return;
        }
        if (trigger.kind === "click") {
          const button = trigger.button.isConnected ? trigger.button : this.adapter.findSendButton(editor);
          if (button) {
            button.click();
            return;
          }
        }
        const target = editor.isConnected ? editor : this.adapter.findEditor();
        const enter = new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, which: 13,
                                                     bubbles: true, cancelable: true, composed: true });
        target?.dispatchEvent(enter);
        if (!enter.defaultPrevented) {
          // Nobody handled the synthetic Enter: press the send button instead.
          const button = this.adapter.findSendButton(target);
          if (button && !button.disabled) button.click();
        }
      } finally {
        this.replaying = false;
      }
    }
  }

  function swallow(e) {
    e.preventDefault();
    e.stopImmediatePropagation();
  }

  W.SendInterceptor = SendInterceptor;
})();
