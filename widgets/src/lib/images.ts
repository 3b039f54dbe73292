// Untrusted content makes no requests (deepnb/core/text/markup.py): Python turns an image from a URL into a
// placeholder naming it; a remote one gets a "load image" button here, and only its click sets an
// <img> src.

const LOADABLE_IMAGE = /^(https?:)?\/\//i;

/** Gives each blocked image placeholder in `container` its "load image" button (once). */
export function armImages(container: ParentNode): void {
  for (const holder of container.querySelectorAll(".dnb-image-blocked[data-src]")) {
    if (holder.querySelector(".dnb-image-load")) continue;
    const load = document.createElement("button");
    load.type = "button";
    load.className = "dnb-image-load";
    load.textContent = "load image";
    load.title = "Loading it sends a request to that address";
    load.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation();
      const src = holder.getAttribute("data-src") || "";
      if (!LOADABLE_IMAGE.test(src)) return;
      const img = document.createElement("img");
      img.className = "dnb-image-loaded";
      img.alt = holder.getAttribute("data-alt") || "";
      img.referrerPolicy = "no-referrer";
      img.src = src; // the one place an image URL from content is loaded: after this click
      holder.replaceWith(img);
    });
    holder.append(" ", load);
  }
}
