/**
 * The text of every message the app sends, in the customer's words (no operator commands). Plain text:
 * it reads the same in every client, and a link is a whole line a person can copy.
 */
import type { MailMessage } from './mailer.js';

export function resetLinkMessage(to: string, url: string, minutes: number): MailMessage {
  return {
    to,
    subject: 'Reset your password',
    text: [
      'Someone (we hope you) asked to reset the password of your account.',
      '',
      'Choose a new password here (the link works once, for ' + minutes + ' minutes):',
      url,
      '',
      'If it was not you, ignore this email: your password stays as it is.',
    ].join('\n'),
  };
}

export function invitationMessage(to: string, invitation: { organization: string; role: string; inviter: string; url: string; days: number }): MailMessage {
  return {
    to,
    subject: `You are invited to ${invitation.organization}`,
    text: [
      `${invitation.inviter} invited you to join ${invitation.organization} as ${invitation.role}.`,
      '',
      `Accept here (the link works once, for ${invitation.days} days):`,
      invitation.url,
      '',
      'If you did not expect this, ignore this email: nothing happens unless you accept.',
    ].join('\n'),
  };
}

export function verifyLinkMessage(to: string, url: string, minutes: number): MailMessage {
  return {
    to,
    subject: 'Confirm your email address',
    text: [
      'Welcome! Confirm that this address is yours to get your first API key:',
      url,
      '',
      'The link works once, for ' + minutes + ' minutes; you can ask for a new one on the Get started page.',
      'If you did not create an account, ignore this email.',
    ].join('\n'),
  };
}

export function signupAttemptMessage(to: string, signinUrl: string, forgotUrl: string): MailMessage {
  return {
    to,
    subject: 'Someone tried to sign up with your email',
    text: [
      'Someone tried to create an account with this email address, which already has one. Nothing changed.',
      '',
      'If it was you, sign in instead: ' + signinUrl,
      'Forgot your password? Reset it: ' + forgotUrl,
      '',
      'If it was not you, you can ignore this email.',
    ].join('\n'),
  };
}

export function newDeviceMessage(to: string, device: { browser: string; ip: string | null; at: string }, securityUrl: string): MailMessage {
  return {
    to,
    subject: 'New sign-in to your account',
    text: [
      'Your account was signed in to from a device it had not seen before:',
      '',
      '  When:    ' + device.at,
      '  Browser: ' + device.browser,
      '  Address: ' + (device.ip ?? 'unknown'),
      '',
      'If this was you, nothing to do. If not, change your password and sign out the other sessions:',
      securityUrl,
    ].join('\n'),
  };
}

/** An alert as the sweep raised it, already put into words (describeAlert in alerts/alert-rules.ts). */
export function alertMessage(to: string, alert: { title: string; lines: readonly string[] }, links: readonly string[]): MailMessage {
  return { to, subject: alert.title, text: [...alert.lines, '', ...links, '', 'Choose which alerts reach you by email on the Security page.'].join('\n') };
}
