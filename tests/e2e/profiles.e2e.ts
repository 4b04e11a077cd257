import { expect, test } from "bun:test";
import { makePng } from "../images";
import { signUpAndOnboard } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

const env = serverAndBrowser();

test("a person edits their profile, reorders photos, changes username and password, and signs out", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signUpAndOnboard(page, env.server.url, { email: "editor@example.com", username: "editor.one", password: "first-password" });

  // Edit profile: add a second photo, make it the main one with the keyboard, write a bio.
  await page.goto(`${env.server.url}/profile`);
  await page.getByRole("link", { name: "Edit profile" }).click();
  await page.waitForURL(/\/edit-profile/);
  await page.locator("[data-hydrated]").waitFor();
  const photos = page.locator("img[data-photo]");
  const first = await photos.nth(0).getAttribute("data-photo");
  await page.locator("input[data-photo-input]").first().setInputFiles({ name: "second.png", mimeType: "image/png", buffer: Buffer.from(await makePng(900, 900)) });
  await photos.nth(1).waitFor();
  const second = await photos.nth(1).getAttribute("data-photo");
  await photos.nth(1).focus();
  await page.keyboard.press("ArrowLeft");
  expect(await photos.nth(0).getAttribute("data-photo")).toBe(second);
  await page.getByText("Photo moved to position 1").waitFor({ state: "attached" });
  // And back by dragging.
  await photos.nth(1).dragTo(photos.nth(0));
  expect(await photos.nth(0).getAttribute("data-photo")).toBe(first);
  await page.getByRole("button", { name: "Move photo 1 later" }).click();
  expect(await photos.nth(0).getAttribute("data-photo")).toBe(second);
  await expectAccessible(page, "edit profile with two photos");

  await page.getByLabel("Bio").fill("I teach tennis on weekends.");
  expect(await page.getByText("27/500 characters").count()).toBe(1);
  await page.getByLabel("Work").fill("Tennis club");
  await page.getByLabel("Politics").selectOption("Moderate");
  // Hide politics from the public profile.
  await page.locator("input[name=visible_politics]").uncheck();
  await page.getByRole("button", { name: "Save" }).first().click();
  await page.waitForURL(`${env.server.url}/profile`);
  await page.getByText("Profile Updated").waitFor();
  await page.getByText("I teach tennis on weekends.").waitFor();
  expect(await page.locator("section[data-carousel] img").first().getAttribute("src")).toBe(`${second}/large.webp`);
  await page.getByText("Hidden").waitFor(); // the owner sees the hidden field, marked
  await expectAccessible(page, "own profile with a toast");

  // The public profile does not show the hidden field.
  await page.goto(`${env.server.url}/profile/editor.one`);
  await page.getByText("Tennis club").waitFor();
  expect(await page.getByText("Moderate").count()).toBe(0);
  await page.getByText("1 / 2").waitFor();
  await page.getByRole("button", { name: "Next photo" }).click();
  await page.getByText("2 / 2").waitFor();
  await page.getByRole("button", { name: "Next photo" }).click();
  await page.getByText("1 / 2").waitFor(); // wraps around
  await expectAccessible(page, "public profile with two photos");

  // Username: Save waits for a change and a free name.
  await page.goto(`${env.server.url}/settings/username`);
  const save = page.getByRole("button", { name: "Save" });
  expect(await save.isDisabled()).toBe(true);
  await page.getByLabel("Username").fill("");
  await page.getByLabel("Username").pressSequentially("alex.guest", { delay: 10 });
  await page.getByText("This username is already taken").waitFor();
  expect(await save.isDisabled()).toBe(true);
  await page.getByLabel("Username").fill("");
  await page.getByLabel("Username").pressSequentially("editor.two", { delay: 10 });
  await page.getByText("Username available").waitFor();
  // htmx shows the new text at once and the status's attributes when it settles (20 ms later):
  // the form is judged then.
  await page.waitForFunction(() => document.getElementById("username-status")?.dataset.blocking === "false");
  expect(await save.isDisabled()).toBe(false);
  await expectAccessible(page, "username settings");
  await save.click();
  await page.waitForURL(`${env.server.url}/settings`);
  await page.getByText("@editor.two").waitFor();

  // Password: wrong current password, then mismatch, then success.
  await page.goto(`${env.server.url}/settings/password`);
  await page.getByLabel("Current password").fill("not-it");
  await page.getByLabel("New password", { exact: true }).fill("second-password");
  await page.getByLabel("Confirm new password").fill("second-password");
  await page.getByRole("button", { name: "Update" }).click();
  await page.getByText("Current password is incorrect").waitFor();
  await page.getByLabel("Current password").fill("first-password");
  await page.getByLabel("New password", { exact: true }).fill("second-password");
  await page.getByLabel("Confirm new password").fill("second-passw0rd");
  await page.getByRole("button", { name: "Update" }).click();
  await page.getByText("Passwords do not match").waitFor();
  await expectAccessible(page, "password settings with an error");
  await page.getByLabel("Current password").fill("first-password");
  await page.getByLabel("New password", { exact: true }).fill("second-password");
  await page.getByLabel("Confirm new password").fill("second-password");
  await page.getByRole("button", { name: "Update" }).click();
  await page.waitForURL(`${env.server.url}/settings`);
  // The "Password updated" toast sits over the list on a phone: closed as a person would, once
  // the page script has armed its button.
  await page.locator("#toasts .toast[data-armed] [data-toast-close]").click();
  await page.locator("#toasts .toast").waitFor({ state: "detached" });

  // Sign out asks first, then lands on the landing page.
  await page.getByText("Sign Out").first().click();
  await page.getByText("Are you sure you want to sign out?").waitFor();
  await expectAccessible(page, "settings, signing out");
  await page.getByRole("button", { name: "Sign Out" }).click();
  await page.waitForURL(`${env.server.url}/`);
  await page.getByRole("link", { name: "Get Started" }).waitFor();

  // The new password works.
  await page.goto(`${env.server.url}/api/login`);
  await page.getByLabel("Email").fill("editor@example.com");
  await page.getByLabel("Password").fill("second-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${env.server.url}/`);
  expect(errors).toEqual([]);
  await page.close();
});

test("a refused upload shows the spec's error toast and adds nothing", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signUpAndOnboard(page, env.server.url, { email: "uploader@example.com", username: "uploader" });
  await page.goto(`${env.server.url}/edit-profile`);
  await page.locator("[data-hydrated]").waitFor();
  await page.locator("input[data-photo-input]").first().setInputFiles({ name: "notes.jpg", mimeType: "image/jpeg", buffer: Buffer.from("definitely not a picture") });
  await page.getByText("This file is not a supported image").waitFor();
  await expectAccessible(page, "edit profile with an upload error");
  expect(await page.locator("img[data-photo]").count()).toBe(1);
  await page.close();
});

test("the profile screens work in French", async () => {
  const context = await env.browser.newContext({ locale: "fr-FR", viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await page.goto(`${env.server.url}/api/login`);
  await page.getByLabel("E-mail").fill("guest@offline.test");
  await page.getByLabel("Mot de passe").fill("offline-demo");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.waitForURL(`${env.server.url}/`);
  await page.goto(`${env.server.url}/settings`);
  await page.getByRole("heading", { name: "Paramètres" }).waitFor();
  await expectAccessible(page, "settings in French");
  await page.goto(`${env.server.url}/profile`);
  await page.getByText("Membre depuis").waitFor();
  await expectAccessible(page, "profile in French");
  await context.close();
});
