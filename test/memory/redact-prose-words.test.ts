import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): a password told in prose with no digit in it was kept ("das Passwort ist
 * Blumenkohlregenschirm"), and so was a passphrase of words. The value check needs no digit but keeps the words
 * that follow "the password is" in a sentence.
 */
describe('passwords without a digit, told in prose', () => {
  it.each([
    ['German ist', 'das Passwort ist Blumenkohlregenschirm', 'Blumenkohlregenschirm'],
    ['German lautet', 'Das Kennwort lautet Fensterbankrosen.', 'Fensterbankrosen'],
    ['German colon', 'Passwort: Sonnenblume', 'Sonnenblume'],
    ['French', 'le mot de passe est parapluiechoufleur', 'parapluiechoufleur'],
    ['French colon', 'Mot de passe : tournesolbleu', 'tournesolbleu'],
    ['Spanish', 'la contraseña es paraguascoliflor', 'paraguascoliflor'],
    ['Italian', 'la password è ombrellocavolfiore', 'ombrellocavolfiore'],
    ['Portuguese', 'a senha é guardachuvacouve', 'guardachuvacouve'],
    ['Dutch', 'het wachtwoord is bloemkoolparaplu', 'bloemkoolparaplu'],
    ['English', 'the password is Marmaladeskies', 'Marmaladeskies'],
    ['passphrase colon', 'passphrase: correct horse battery staple', 'correct horse battery staple'],
    ['passphrase is, in a sentence', 'The passphrase is purple monkey dishwasher lantern.', 'purple monkey dishwasher lantern'],
    ['PIN', 'the PIN is 4821', '4821'],
    ['German PIN', 'Die PIN lautet 482193.', '482193'],
    ['PIN colon', 'SIM PIN: 7391', '7391'],
  ])('%s', (_name, input, value) => {
    const out = redact(input);
    expect(out).not.toContain(value);
    expect(out).toContain('[REDACTED:password]');
    expect(redact(out)).toBe(out);
  });

  it('keeps what follows "the password is" in a sentence (adjectives, participles, adverbs, code types)', () => {
    for (const text of [
      'The password is required.',
      'The password is generated automatically by the server.',
      'the password is something you choose',
      'the password is probably wrong',
      'The password is different for staging.',
      'the password is incorrectly configured',
      'Das Passwort ist erforderlich.',
      'Das Passwort ist abgelaufen und muss zurückgesetzt werden.',
      'das Passwort ist gespeichert',
      'Das Passwort ist verschlüsselt.',
      'le mot de passe est incorrect',
      'le mot de passe est obligatoire',
      'Le mot de passe est expiré.',
      'la contraseña es incorrecta',
      'La contraseña es obligatoria.',
      'la contraseña es requerida',
      'la password è sbagliata',
      'a senha é obrigatória',
      'het wachtwoord is verplicht',
      'password: undefined',
      'interface X { password: string; }',
      'the token is generated automatically',
      'the secret key is rotated daily',
      'the passphrase is stored encrypted locally',
      'The passphrase is used to unlock the key.',
      'passphrase: required to unlock',
      'pin 13 is high',
      'the PIN is required',
      'GPIO pin: 4821',
    ]) expect(redact(text), text).toBe(text);
  });
});
