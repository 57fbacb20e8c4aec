import { describe, expect, it } from 'vitest';
import { redact } from '../../src/memory/redact.js';

/**
 * Issue 10, item 8 (new-user trial): `htpasswd -b file user pw` kept the password. Positional and client-specific
 * password arguments, as a kind: each client the way its manual gives the password.
 */
describe('passwords given to a client by position or by its own flag', () => {
  it.each([
    ['htpasswd -b', 'htpasswd -b .htpasswd admin Blumen42x', 'htpasswd -b .htpasswd admin [REDACTED:password]'],
    ['htpasswd -b -c', 'htpasswd -b -c /etc/nginx/.htpasswd admin Blumen42x', 'htpasswd -b -c /etc/nginx/.htpasswd admin [REDACTED:password]'],
    ['htpasswd -bB -C cost', 'htpasswd -bB -C 12 users.db alice Blumen42x', 'htpasswd -bB -C 12 users.db alice [REDACTED:password]'],
    ['htpasswd -nb (no file)', 'htpasswd -nbB alice Blumen42x > auth', 'htpasswd -nbB alice [REDACTED:password] > auth'],
    ['mysqladmin password', "mysqladmin -u root -pOld42pw password 'New pw 42'", "mysqladmin -u root -p[REDACTED:password] password '[REDACTED:password]'"],
    ['smbclient -U user%pw', 'smbclient //srv/share -U alice%Smb42pwd -c ls', 'smbclient //srv/share -U alice%[REDACTED:password] -c ls'],
    ['smbclient quoted domain user', 'smbclient -L //srv -U "CORP\\alice%Smb42pwd"', 'smbclient -L //srv -U "CORP\\alice%[REDACTED:password]"'],
    ['smbclient service password', 'smbclient //srv/share Smb42pwd -U alice', 'smbclient //srv/share [REDACTED:password] -U alice'],
    ['rpcclient --user=', 'rpcclient --user=alice%Smb42pwd 10.0.0.2', 'rpcclient --user=alice%[REDACTED:password] 10.0.0.2'],
    ['net use', 'net use Z: \\\\srv\\share Net42pwd /user:alice', 'net use Z: \\\\srv\\share [REDACTED:password] /user:alice'],
    ['net use, user first', 'net use \\\\srv\\share /user:CORP\\alice Net42pwd', 'net use \\\\srv\\share /user:CORP\\alice [REDACTED:password]'],
    ['net user', 'C:\\> net user bob Net42pwd /add', 'C:\\> net user bob [REDACTED:password] /add'],
    ['sshpass glued', 'sshpass -pSsh42pwd ssh deploy@host', 'sshpass -p[REDACTED:password] ssh deploy@host'],
    ['ldapsearch -w', 'ldapsearch -x -D "cn=admin,dc=ex" -w Ldap42pw -b dc=ex', 'ldapsearch -x -D "cn=admin,dc=ex" -w [REDACTED:password] -b dc=ex'],
    ['zip -P', 'zip -P Zip42pwd out.zip a.txt', 'zip -P [REDACTED:password] out.zip a.txt'],
    ['7z -p', '7z a -pSeven42pw out.7z dir', '7z a -p[REDACTED:password] out.7z dir'],
    ['lftp -u user,pw', 'lftp -u alice,Ftp42pwd ftp.example.com', 'lftp -u alice,[REDACTED:password] ftp.example.com'],
    ['mosquitto -P', 'mosquitto_pub -h broker -u dev -P Mqtt42pw -t t -m x', 'mosquitto_pub -h broker -u dev -P [REDACTED:password] -t t -m x'],
    ['ssh-keygen -P -N', 'ssh-keygen -p -P Old42pw -N "new pass 42" -f k', 'ssh-keygen -p -P [REDACTED:password] -N [REDACTED:password] -f k'],
    ['echo | docker login --password-stdin', 'echo "Reg42pwd" | docker login -u me --password-stdin', 'echo [REDACTED:password] | docker login -u me --password-stdin'],
    ['echo | sudo -S', "echo 'Sudo42pw' | sudo -S apt-get update", 'echo [REDACTED:password] | sudo -S apt-get update'],
    ['url userinfo', 'git clone https://alice:Url42pwd@git.example.com/x.git', 'git clone https://alice:[REDACTED:url_password]@git.example.com/x.git'],
    ['cifs mount options', 'mount -t cifs //srv/s /mnt -o username=alice,password=Cifs42pw,uid=1000', 'mount -t cifs //srv/s /mnt -o username=alice,password=[REDACTED:password],uid=1000'],
  ])('%s', (_name, input, expected) => {
    expect(redact(input)).toBe(expected);
    expect(redact(expected)).toBe(expected);
  });

  it('leaves the same clients alone when no password is given', () => {
    for (const text of [
      'htpasswd -c .htpasswd admin',
      'htpasswd -B users.db alice',
      'mysqladmin -u root status',
      'smbclient -L //srv -N',
      'smbclient //srv/share -U alice -c ls',
      'net use Z: \\\\srv\\share * /user:alice',
      'net use Z: \\\\srv\\share /persistent:yes',
      'the net user count went up',
      'zip -r out.zip dir',
      '7z x -o/tmp a.7z',
      'ssh-keygen -t rsa -N "" -f k',
      'echo $REGISTRY_TOKEN | docker login -u me --password-stdin',
      'ldapsearch -x -b dc=ex -H ldap://localhost',
    ]) expect(redact(text), text).toBe(text);
  });
});
