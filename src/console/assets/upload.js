// Upload progress for the console's file forms (README "Console"): a form marked data-upload is
// sent with XMLHttpRequest, so its <progress> moves as the bytes go; when the server answers with
// a redirect (the upload was taken) the browser goes there; when it answers with an error page,
// that page's error messages are shown in the form's status line and the form stays as it was,
// file chosen and fields typed. Without this script the same form posts as a plain form.

(() => {
  const messagesOf = (html) => {
    const doc = new DOMParser().parseFromString(html, "text/html");
    const found = [...doc.querySelectorAll(".field-error, .error-summary li, .error-summary p, main > p")]
      .map((node) => node.textContent.trim())
      .filter((text) => text !== "");
    return [...new Set(found)].join(" ");
  };

  const attach = (form) => {
    const bar = form.querySelector(".upload-progress progress");
    const status = form.querySelector(".upload-status");
    if (!bar || !status) return;
    const say = (text, failed) => {
      status.textContent = text;
      status.classList.toggle("failed", failed);
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const buttons = form.querySelectorAll("button[type=submit]");
      const request = new XMLHttpRequest();
      request.open("POST", form.action);
      request.responseType = "text";
      bar.hidden = false;
      bar.value = 0;
      say("Uploading… 0 %", false);
      for (const button of buttons) button.disabled = true;
      const done = () => {
        for (const button of buttons) button.disabled = false;
      };
      request.upload.addEventListener("progress", (progress) => {
        if (!progress.lengthComputable) return;
        const percent = Math.floor((progress.loaded / progress.total) * 100);
        bar.value = percent;
        say(`Uploading… ${percent} %`, false);
      });
      request.upload.addEventListener("load", () => {
        bar.value = 100;
        say("Uploaded 100 %; the server is checking the file…", false);
      });
      request.addEventListener("load", () => {
        done();
        if (request.status >= 200 && request.status < 300) {
          bar.value = 100;
          say("Upload complete (100 %).", false);
          window.location.assign(request.responseURL);
          return;
        }
        const why = messagesOf(request.responseText) || `the server answered ${request.status}.`;
        say(`The upload failed: ${why}`, true);
      });
      request.addEventListener("error", () => {
        done();
        say("The upload failed: the connection was lost. Nothing was changed; try again.", true);
      });
      request.addEventListener("abort", () => {
        done();
        say("The upload was cancelled.", true);
      });
      request.send(new FormData(form));
    });
  };

  // A chosen image is shown before it is sent (a blob: URL, which the CSP allows for images).
  const preview = (image) => {
    const input = document.getElementById(image.dataset.previewFor);
    if (!input) return;
    input.addEventListener("change", () => {
      const file = input.files?.[0];
      if (image.src) URL.revokeObjectURL(image.src);
      if (!file?.type.startsWith("image/")) {
        image.hidden = true;
        image.removeAttribute("src");
        return;
      }
      image.src = URL.createObjectURL(file);
      image.hidden = false;
    });
  };

  const start = () => {
    for (const form of document.querySelectorAll("form[data-upload]")) attach(form);
    for (const image of document.querySelectorAll("img[data-preview-for]")) preview(image);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
